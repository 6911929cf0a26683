"""The sizing report: its sections evaluated into a ``ReportView`` (``sections``), each
section's scenario variants and the ones left out with the reason (``variants``), and
every variant gathered into one batch (``plan``).
"""
