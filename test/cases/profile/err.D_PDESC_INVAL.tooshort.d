profile-10us { }
