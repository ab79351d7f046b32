"""Planning a study: annotator models, designs, simulation and the sample-size search."""
