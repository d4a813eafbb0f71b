"""niwa referee package."""
