"""URLs and views of the 'metrics' area."""
app_name = "metrics"
urlpatterns = []
