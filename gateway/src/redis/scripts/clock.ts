// The coherence clock's scripts (gateway/README.md, "Consistency"), run by coherence/clock.ts.
/**
 * The start of every coherence script (gateway/README.md, "Consistency", rule 3). KEYS[1] is the
 * clock; ARGV[1] the run_id of the Redis server the caller's connection talks to, ARGV[2] a fresh
 * epoch never used before (hex), ARGV[3] the invalidation channel. The clock is taken as it is only if it exists
 * and that very server vouched for it; otherwise a new clock is made with the fresh epoch and
 * announced, which makes every older response and tag version invalid at once (after a restart,
 * a flush, an eviction of the clock, a failover to a replica that missed writes). Nothing here
 * reads Redis's clock to judge a lease: leases are timed by each gateway's monotonic clock alone
 * (rule 5); TIME only dates pending marks, which a confirm clears.
 */
export const CLOCK_PROLOGUE = `
local CLOCK = KEYS[1]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function new_clock(cause, extra)
  redis.call('DEL', CLOCK)
  redis.call('HSET', CLOCK, 'epoch', ARGV[2], 'seq', 0, 'server', ARGV[1], 'cause', cause, unpack(extra))
  redis.call('PUBLISH', ARGV[3], cjson.encode({kind = 'epoch', epoch = ARGV[2], seq = 0, cause = cause}))
  return ARGV[2], 0
end
local function ensure_clock()
  local c = redis.call('HMGET', CLOCK, 'epoch', 'seq', 'server')
  if c[1] and c[3] == ARGV[1] then return c[1], tonumber(c[2]) end
  -- Vouched for by another server: a replica promoted, or a restart that reloaded a snapshot.
  if c[1] then return new_clock('failover', {}) end
  -- Gone: a restart without persistence, a flush, or an eviction.
  return new_clock('lost', {})
end
local function version_of(value, epoch)
  if not value then return nil end
  local e, s = string.match(value, '^(%x+):(%d+)$')
  if e ~= epoch then return nil end
  return tonumber(s)
end
`;

/**
 * One phase of a write's announcement (rule 4): KEYS[2..1+n] the tags' versions, KEYS[2+n..1+2n]
 * their stored-response counts; ARGV[4] 'prepare' or 'confirm', [5] pending ms, [6] version TTL
 * ms, [7] the write's LSN ('' for a prepare), [8..] the tags. One new seq; every tag's version
 * set to it and its count dropped; a prepare marks the tags pending in the clock (stores refused
 * until then), a confirm clears the marks; the phase is published. Returns {epoch, seq}.
 */
export const ANNOUNCE = `${CLOCK_PROLOGUE}
local epoch = ensure_clock()
local seq = redis.call('HINCRBY', CLOCK, 'seq', 1)
local pending_until = now_ms() + tonumber(ARGV[5])
local n = #ARGV - 7
local tags = {}
for j = 1, n do
  local tag = ARGV[7 + j]
  tags[j] = tag
  redis.call('SET', KEYS[1 + j], epoch .. ':' .. seq, 'PX', ARGV[6])
  redis.call('DEL', KEYS[1 + n + j])
  if ARGV[4] == 'prepare' then
    redis.call('HSET', CLOCK, 'p:' .. tag, pending_until)
  else
    redis.call('HDEL', CLOCK, 'p:' .. tag)
  end
end
local message = {kind = ARGV[4], epoch = epoch, seq = seq, tags = tags}
if ARGV[4] == 'prepare' then message.pendingMs = tonumber(ARGV[5]) else message.lsn = ARGV[7] end
redis.call('PUBLISH', ARGV[3], cjson.encode(message))
return {epoch, seq}`;

/**
 * A member's renewal (rule 5) and its protocol's beat (rule 12): KEYS[2] the presence hash,
 * ARGV[4] member id, [5] the epoch it knows, [6] the last seq it processed, [7] its protocol,
 * [8] the beat's token (never used before). The renewal is recorded only in the epoch the member
 * knows: a member is in the clock from its first renewal until a writer forgets it. Returns
 * {epoch, seq, cause, presence}: what started the epoch (lost, failover, swap, protocols), and
 * every protocol's latest token as [protocol, token, …].
 */
export const RENEW = `${CLOCK_PROLOGUE}
local epoch, seq = ensure_clock()
if epoch == ARGV[5] then
  redis.call('HSET', CLOCK, 'm:' .. ARGV[4], ARGV[6])
end
redis.call('HSET', KEYS[2], ARGV[7], ARGV[8])
return {epoch, seq, redis.call('HGET', CLOCK, 'cause') or 'lost', redis.call('HGETALL', KEYS[2])}`;

/**
 * Ends a time beside other protocols (rule 12): KEYS[2] the presence hash, ARGV[4..] pairs of a
 * protocol and the token it last beat with, each seen unchanged for PRESENCE_MS. When one beat
 * again since, nothing ends ({epoch, 0}). Else, once per such set of tokens, their entries are
 * deleted and a new epoch begins, which voids everything this protocol cached before or during
 * the time beside them (their writes were never announced here); it records the tokens it ended,
 * so the other members ending the same time find it done. Returns {epoch, 1}.
 */
export const END_BESIDE = `${CLOCK_PROLOGUE}
local epoch = ensure_clock()
local n = (#ARGV - 3) / 2
local done = true
for i = 1, n do
  local protocol, token = ARGV[2 + 2 * i], ARGV[3 + 2 * i]
  local current = redis.call('HGET', KEYS[2], protocol)
  if current and current ~= token then return {epoch, 0} end
  if redis.call('HGET', CLOCK, 'ended:' .. protocol) ~= token then done = false end
end
if done then return {epoch, 1} end
local ended = {}
for i = 1, n do
  local protocol, token = ARGV[2 + 2 * i], ARGV[3 + 2 * i]
  if redis.call('HGET', KEYS[2], protocol) == token then redis.call('HDEL', KEYS[2], protocol) end
  ended[#ended + 1] = 'ended:' .. protocol
  ended[#ended + 1] = token
end
return {(new_clock('protocols', ended)), 1}`;

/**
 * Who may still serve what a write's confirm voids (rule 5): ARGV[4] the confirm's epoch, [5] its
 * seq, [6] '1' to forget them. Counts the members that have not processed that seq; the writer
 * forgets them once it has waited a lease for them (any lease they held has ended by its clock:
 * they join again with their next renewal). Returns {waiting, replaced}: replaced is 1 when the
 * clock is not the confirm's any more (members of an older clock may hold leases nobody here
 * can see).
 */
export const UNACKNOWLEDGED = `${CLOCK_PROLOGUE}
local epoch = ensure_clock()
if epoch ~= ARGV[4] then return {0, 1} end
local waiting = 0
local fields = redis.call('HGETALL', CLOCK)
for i = 1, #fields, 2 do
  local name = fields[i]
  if string.sub(name, 1, 2) == 'm:' and tonumber(fields[i + 1]) < tonumber(ARGV[5]) then
    if ARGV[6] == '1' then redis.call('HDEL', CLOCK, name) else waiting = waiting + 1 end
  end
end
return {waiting, 0}`;

/**
 * A catalog swap (rule 9): ARGV[4] the swap id. The first script to see it replaces the clock
 * with a new epoch; later ones find the id recorded. Returns the epoch.
 */
export const SWAP = `${CLOCK_PROLOGUE}
local epoch = ensure_clock()
if redis.call('HGET', CLOCK, 'swap') == ARGV[4] then return epoch end
return (new_clock('swap', {'swap', ARGV[4]}))`;
