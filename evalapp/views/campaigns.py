"""URLs and views of the 'campaigns' area."""
app_name = "campaigns"
urlpatterns = []
