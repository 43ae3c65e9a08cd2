-- A script for the Lua profiler example (examples/lua-profiler): recursion,
-- a class with methods, an error caught by pcall, tail calls, string
-- processing and coroutines.  tests/it/lua.rs checks the calls it makes.

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local Account = {}
Account.__index = Account

function Account.new(owner)
  return setmetatable({ owner = owner, balance = 0 }, Account)
end

function Account:deposit(v)
  self.balance = self.balance + v
end

function Account:withdraw(v)
  if v > self.balance then error("insufficient funds") end
  self.balance = self.balance - v
end

local function shout(s)
  return s .. "!"
end

local function count_down(n)
  if n == 0 then return shout("done") end
  return count_down(n - 1)
end

local function words(s)
  local out = {}
  for w in s:gmatch("%a+") do out[#out + 1] = w:upper() end
  return out
end

local function producer(n)
  for i = 1, n do coroutine.yield(i) end
end

print(fib(10))

local acc = Account.new("ann")
acc:deposit(50)
acc:deposit(25)
acc:withdraw(30)
local ok = pcall(acc.withdraw, acc, 1000)
print(acc.balance, ok)

print(count_down(3))

print(table.concat(words("the quick brown fox"), " "))

local gen = coroutine.wrap(function() producer(3) end)
local sum = 0
for _ = 1, 3 do sum = sum + gen() end
print(sum)
