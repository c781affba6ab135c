/* curpsinfo has the members Linux can fill; pr_zoneid is not one of them. */
BEGIN { trace(curpsinfo->pr_zoneid); }
