"""``fitproof site``: a configurator page per model, accelerator and language (``build``),
the snapshot data the pages share (``data``), Jinja2 templates (``templates/``) and the
scripts and stylesheet they load (``assets/``).
"""
