import { CLOCK_PROLOGUE } from './clock.js';

// The shared response cache's scripts, run by cache/redis-store.ts.

/**
 * How a stored entry starts (cache/entry.ts writes and reads it, LOAD checks it): this many header
 * lines, the epoch and seq of the read on the first two, its tags on this line, then the body.
 */
export const ENTRY_HEADER_LINES = 6;
export const ENTRY_TAGS_LINE = 6;

/**
 * A response if it is still valid (gateway/README.md, "Consistency", rule 1): KEYS[2] the
 * response, ARGV[4] the prefix of tag version keys. Valid when its epoch is the clock's and every
 * tag's version exists, is of that epoch and is at most the seq its data was read at. An invalid
 * one is deleted. Returns the text, or false.
 */
export const LOAD = `${CLOCK_PROLOGUE}
local epoch = ensure_clock()
local text = redis.call('GET', KEYS[2])
if not text then return false end
local field = {}
local from = 1
for i = 1, ${ENTRY_HEADER_LINES} do
  local at = string.find(text, '\\n', from, true)
  if not at then redis.call('UNLINK', KEYS[2]) return false end
  field[i] = string.sub(text, from, at - 1)
  from = at + 1
end
if field[1] ~= epoch then redis.call('UNLINK', KEYS[2]) return false end
local read_seq = tonumber(field[2])
for tag in string.gmatch(field[${ENTRY_TAGS_LINE}], '%S+') do
  local version = version_of(redis.call('GET', ARGV[4] .. tag), epoch)
  if not version or version > read_seq then redis.call('UNLINK', KEYS[2]) return false end
end
return text`;

/**
 * Stores a response (rules 2 and 4): KEYS[2] the response, KEYS[3..2+n] its tags' versions,
 * KEYS[3+n..2+2n] their counts; ARGV[4] the read's epoch, [5] its seq, [6] TTL ms, [7] version TTL
 * ms, [8] most entries per tag, [9] the entry, [10] the tag version prefix. Refused (0) when the
 * epoch moved, or a tag is pending or was invalidated after the read began; a missing version is
 * made at the current seq, which then must not exceed the read's. -1 when a tag holds its most
 * entries already. 1 when stored.
 */
export const STORE = `${CLOCK_PROLOGUE}
local epoch, seq = ensure_clock()
if epoch ~= ARGV[4] then return 0 end
local read_seq = tonumber(ARGV[5])
local n = (#KEYS - 2) / 2
local now = now_ms()
for i = 1, n do
  local version_key = KEYS[2 + i]
  local pending = redis.call('HGET', CLOCK, 'p:' .. string.sub(version_key, string.len(ARGV[10]) + 1))
  if pending and tonumber(pending) > now then return 0 end
  local version = version_of(redis.call('GET', version_key), epoch)
  if version then
    redis.call('PEXPIRE', version_key, ARGV[7])
  else
    version = seq
    redis.call('SET', version_key, epoch .. ':' .. seq, 'PX', ARGV[7])
  end
  if version > read_seq then return 0 end
end
for i = 1, n do
  local count_key = KEYS[2 + n + i]
  local count = redis.call('INCR', count_key)
  if count == 1 then redis.call('PEXPIRE', count_key, ARGV[6]) end
  if count > tonumber(ARGV[8]) then return -1 end
end
redis.call('SET', KEYS[2], ARGV[9], 'PX', ARGV[6])
return 1`;
