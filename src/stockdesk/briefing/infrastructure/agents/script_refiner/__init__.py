"""The ticker script refiner (spec 7.3): transition edits of the merged script, per existing id."""
