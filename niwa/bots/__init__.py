"""niwa bots package."""
