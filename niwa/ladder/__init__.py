"""niwa ladder package."""
