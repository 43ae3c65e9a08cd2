-- Sorting, string formatting, pattern matching and recursion, REPS times.
local sum = 0
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
for r = 1, REPS do
    local t = {}
    for i = 1, 2000 do t[i] = (i * 7919 + r) % 100003 end
    table.sort(t)
    local s = {}
    for i = 1, 200 do s[#s + 1] = string.format("%d:%s", i, string.rep("x", i % 7)) end
    for w in table.concat(s, ","):gmatch("%d+") do sum = sum + tonumber(w) end
    sum = sum + fib(12) + t[1]
end
print(sum)
