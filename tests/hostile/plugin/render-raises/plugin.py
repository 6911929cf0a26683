from fitproof.hookspecs import hookimpl


def render(view, options):
    return 1 / 0


@hookimpl
def register_output_formats(register):
    register('evil', 'estimate', render)
