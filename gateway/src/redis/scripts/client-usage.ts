// The rate limits' script, run by limits/redis-sync.ts.

// Records one replica's counts of each client in a window and returns the other replicas' sums.
// KEYS[i]: a client's counts in one window, a hash with the fields requests:<replica> and
// cost:<replica>, living ARGV[1] ms; ARGV[2]: this replica's id; ARGV[2i+1], ARGV[2i+2]: its
// requests and cost for KEYS[i]. Returns two numbers per key: the other replicas' requests and cost.
// Each replica writes its own totals, never an increment: a write that timed out on the way and
// is applied late, or is sent again, cannot count anything twice.
export const RECORD_USAGE = `
local me = ARGV[2]
local others = {}
for i, key in ipairs(KEYS) do
  redis.call('HSET', key, 'requests:' .. me, ARGV[2 * i + 1], 'cost:' .. me, ARGV[2 * i + 2])
  redis.call('PEXPIRE', key, ARGV[1])
  local requests, cost = 0, 0
  local fields = redis.call('HGETALL', key)
  for j = 1, #fields, 2 do
    local kind, replica = string.match(fields[j], '^(%a+):(.+)$')
    if replica ~= me then
      if kind == 'requests' then requests = requests + tonumber(fields[j + 1]) else cost = cost + tonumber(fields[j + 1]) end
    end
  end
  others[2 * i - 1] = requests
  others[2 * i] = cost
end
return others`;
