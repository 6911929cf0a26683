from fitproof.hookspecs import hookimpl


@hookimpl
def register_packs(register):
    from pathlib import Path

    register(Path(__file__).parent / 'packs')
