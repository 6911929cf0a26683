from fitproof.hookspecs import hookimpl


def render(view, options):
    return 42


@hookimpl
def register_output_formats(register):
    register('evil', 'estimate', render)
