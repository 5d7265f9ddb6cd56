-- Replays a request plan written by bench/plans.ts: one "METHOD<TAB>PATH<TAB>BODY" line per
-- request (BODY empty for GETs). Each thread starts at its own slice of the plan and walks
-- it in order, so the ids of a cold plan are not repeated until the plan wraps around.
-- Args (after `--`): plan file, thread count, and optionally an Accept-Encoding for every GET.
-- Prints one JSON line prefixed "WRK_RESULT ".

local threads_set_up = 0

function setup(thread)
  thread:set("thread_index", threads_set_up)
  threads_set_up = threads_set_up + 1
end

function init(args)
  local plan_file, thread_count, accept_encoding = args[1], tonumber(args[2]), args[3]
  local get_headers = accept_encoding and { ["Accept-Encoding"] = accept_encoding } or nil
  requests = {}
  for line in io.lines(plan_file) do
    local method, path, body = line:match("^(%u+)\t([^\t]+)\t(.*)$")
    if not method then error("bad plan line in " .. plan_file .. ": " .. line) end
    if body == "" then
      requests[#requests + 1] = wrk.format(method, path, get_headers)
    else
      requests[#requests + 1] = wrk.format(method, path, { ["Content-Type"] = "application/json" }, body)
    end
  end
  position = math.floor(#requests * thread_index / thread_count)
end

function request()
  position = position % #requests + 1
  return requests[position]
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationMicros":%d,"bytes":%d,"connectErrors":%d,"readErrors":%d,' ..
    '"writeErrors":%d,"timeouts":%d,"statusErrors":%d,"p50Micros":%d,"p95Micros":%d,"p99Micros":%d,' ..
    '"maxMicros":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max))
end
