"""The panel's five data tools over data_engineering's use cases, and the filing page index cache."""
