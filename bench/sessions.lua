-- wrk script of bench/overhead.sh: every request carries an admitted session's cookie, a browser's page request.
--   wrk -t T -c C -s bench/sessions.lua URL -- COOKIE_FILE T
-- COOKIE_FILE holds one "name=value" admission cookie a line, fetched from the server before the run (one session
-- per connection: as many lines as connections). Thread t takes lines t, t+T, t+2T, ...
-- wrk's Lua never sees which connection asks for the next request, so a thread hands its sessions out in turn:
-- with as many sessions as connections, a session has about one request in flight, and never comes near
-- admission.max-per-session (8).
local next_id = 0

function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
end

function init(args)
   local threads = tonumber(args[2])
   local i = 0
   requests = {}
   for line in io.lines(args[1]) do
      if i % threads == id then
         requests[#requests + 1] = wrk.format("GET", wrk.path, {
            ["Cookie"] = line,
            ["Accept"] = "text/html,application/xhtml+xml,*/*;q=0.8",
         })
      end
      i = i + 1
   end
   if #requests == 0 then
      error("no cookie for thread " .. id .. " in " .. args[1])
   end
   n = 0
end

function request()
   n = n % #requests + 1
   return requests[n]
end
