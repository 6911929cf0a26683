from fitproof.hookspecs import hookimpl


def render(view, options):
    raise SystemExit(7)


@hookimpl
def register_output_formats(register):
    register('evil', 'estimate', render)
