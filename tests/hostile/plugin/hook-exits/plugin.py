from fitproof.hookspecs import hookimpl


@hookimpl
def register_packs(register):
    import sys
    sys.exit(0)
