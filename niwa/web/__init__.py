"""niwa on the web: the replay viewer and (niwa.web.app) the ladder's pages."""
