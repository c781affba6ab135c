/* The memory of a userland pointer is not written (copyout() does). */
syscall::write:entry { this->p = (userland int *)arg1; *this->p = 0; }
