-- wrk script for a rate-limited load: each connection waits 10 ms before each request, so
-- wrk -t1 -c10 sends at most ~1,000 req/s (a little less: the response time adds to the wait).
-- Debian ships wrk, not wrk2, so -R is not available.
function delay()
  return 10
end
