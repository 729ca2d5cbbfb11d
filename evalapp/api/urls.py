"""URLs of the REST API."""
app_name = "api"
urlpatterns = []
