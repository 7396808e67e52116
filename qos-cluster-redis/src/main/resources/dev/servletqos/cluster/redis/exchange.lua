-- One node's exchange with the cluster, atomic (docs/cluster.md).
-- ARGV: 1 key prefix, 2 node id, 3 the node's report, 4 time to live of the report (ms).
-- Returns: the live nodes' reports (this one's included), the revoked subjects, the settings' version and text.
-- Keys are not declared: a standalone Redis or a replicated primary, not Redis Cluster.
local p = ARGV[1]
local node = ARGV[2]
local ttl = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nodes = p .. 'nodes'
-- heartbeat: a node whose time to live passed is no longer counted
redis.call('ZREMRANGEBYSCORE', nodes, '-inf', now)
redis.call('ZADD', nodes, now + ttl, node)
redis.call('PEXPIRE', nodes, ttl)
redis.call('SET', p .. 'node:' .. node, ARGV[3], 'PX', ttl)
local reports = {}
for _, id in ipairs(redis.call('ZRANGE', nodes, 0, -1)) do
  local r = redis.call('GET', p .. 'node:' .. id)
  if r then
    reports[#reports + 1] = r
  end
end
local revokedKey = p .. 'revoked'
redis.call('ZREMRANGEBYSCORE', revokedKey, '-inf', now)
local revoked = redis.call('ZRANGE', revokedKey, 0, -1)
local s = redis.call('HMGET', p .. 'settings', 'version', 'text')
return {reports, revoked, s[1] or '0', s[2] or ''}
