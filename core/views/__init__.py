"""Plain, evaluated values that renderers read: the estimate card (``estimate``, named
tuples the snapshot path builds cheaply), the other commands' views (``results``), the
report (``report``), the table of output formats (``formats``), message templates
(``message_format``) and number formatting (``numbers``).

Views hold no registry and compute nothing; the layers above build them.
"""
