/* @@stderr: ustack( ) argument #2 must be a positive integer constant */
profile-97 { ustack(5, -1); }
