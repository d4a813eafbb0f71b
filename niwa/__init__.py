"""The ``niwa`` command line: it ties the engine, referee, bots and ladder together."""
