/* @@stderr: stack( ) size must be a non-zero positive integral constant expression */
profile-97 { stack(0); }
