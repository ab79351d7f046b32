"""Reading label files and scenario files into the objects the statistics use."""
