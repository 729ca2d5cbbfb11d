"""URLs and views of the 'results' area."""
app_name = "results"
urlpatterns = []
