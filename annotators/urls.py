"""URLs of the rater screens."""
app_name = "annotators"
urlpatterns = []
