CPU     ID                    FUNCTION:NAME
 *[0-9]+ +[0-9]+ {18}nanosleep:entry 
 *[0-9]+ +[0-9]+ {18}nanosleep:entry 

