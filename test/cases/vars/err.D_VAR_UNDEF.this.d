/* @@stderr: this->len has not yet been declared or assigned */
BEGIN { trace(this->len); }
