from fitproof.hookspecs import hookimpl


@hookimpl
def register_everything(register):
    pass
