from fitproof.hookspecs import hookimpl


@hookimpl
def register_output_formats(register):
    register('evil', 'estimate', 'not a function')
