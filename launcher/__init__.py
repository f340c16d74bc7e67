"""The composition root: the ``tavolo`` command, which starts each component or the whole stack."""
