 *ID +PROVIDER +MODULE +FUNCTION NAME
 *[0-9]+ +python[0-9]+ +python3\.[0-9]+ +gc-start
 *[0-9]+ +python[0-9]+ +python3\.[0-9]+ +function-entry
