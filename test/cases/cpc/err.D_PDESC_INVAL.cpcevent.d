/* @@stderr: unknown event "PAPI_no_such" */
cpc:::PAPI_no_such-user-10000 { @ = count(); }
