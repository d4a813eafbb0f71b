"""niwa on the web: the replay viewer and (web.app) the ladder's pages."""
