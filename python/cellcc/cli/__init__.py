"""The ``cellcc`` command line (typer). Entry point: :func:`cellcc.cli.main.main`."""
