"""Side studies of the book's chapters on the profile's grid: the ALC's (``alc_study``), the risk
of disclosure's (``disclosure_study``) and PATE-GAN's training length (``pategan_study``)."""
