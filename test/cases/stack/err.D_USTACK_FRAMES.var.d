/* @@stderr: ustack( ) argument #1 must be a non-zero positive integer constant */
/* the number of frames is a constant */
profile-97 { ustack(arg0); }
