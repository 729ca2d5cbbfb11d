"""URLs and views of the 'data' area."""
app_name = "data"
urlpatterns = []
