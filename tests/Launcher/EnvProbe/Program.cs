using System.Collections;
using System.Runtime.InteropServices;
using System.Text.Json.Nodes;
using AlvorKit.Interception.Native;

// EnvProbe env              one JSON line: the CORECLR_*/ALVORKIT_* variables, DOTNET_STARTUP_HOOKS and the
//                           profiler's status
// EnvProbe exit <code>      exits with <code>
// EnvProbe wait-signal <code>
//                           prints {"ready":true}, waits (at most 30 s) for SIGINT or SIGTERM,
//                           prints {"signal":"SIGINT"|"SIGTERM"|null} and exits with <code>
switch (args.FirstOrDefault())
{
    case "env":
        Console.WriteLine(new JsonObject { ["environment"] = Variables(), ["profiler"] = ProfilerState() }.ToJsonString());
        return 0;
    case "exit":
        return int.Parse(args[1]);
    case "wait-signal":
        return WaitSignal(int.Parse(args[1]));
    default:
        Console.Error.WriteLine("usage: EnvProbe env | exit <code> | wait-signal <code>");
        return 64;
}

static JsonObject Variables()
{
    var json = new JsonObject();
    foreach (DictionaryEntry e in Environment.GetEnvironmentVariables())
    {
        string key = (string)e.Key;
        if (key.StartsWith("CORECLR_", StringComparison.Ordinal) || key.StartsWith("ALVORKIT_", StringComparison.Ordinal) ||
            key == "DOTNET_STARTUP_HOOKS")
            json[key] = (string?)e.Value;
    }
    return json;
}

static JsonObject ProfilerState()
{
    try
    {
        ProfilerLibrary library = ProfilerLibrary.Open();
        AlvkStatus call = library.GetRuntimeStatus(out AlvkRuntimeStatus status);
        return new JsonObject
        {
            ["opened"] = true,
            ["path"] = library.Path,
            ["abiMajor"] = ProfilerLibrary.MajorOf(library.VersionNumber),
            ["call"] = call.ToString(),
            ["attached"] = status.Attached,
            ["startupStatus"] = status.StartupStatus.ToString(),
            ["allowlistKind"] = status.AllowlistKind.ToString(),
            ["allowlistCount"] = status.AllowlistCount,
            ["allocationProfiling"] = status.AllocationProfiling,
        };
    }
    catch (ProfilerUnavailableException e)
    {
        return new JsonObject { ["opened"] = false, ["reason"] = e.Reason.ToString(), ["message"] = e.Message };
    }
}

static int WaitSignal(int code)
{
    var received = new TaskCompletionSource<string>();
    using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, c => { c.Cancel = true; received.TrySetResult("SIGINT"); });
    using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, c => { c.Cancel = true; received.TrySetResult("SIGTERM"); });
    Console.WriteLine(new JsonObject { ["ready"] = true, ["pid"] = Environment.ProcessId }.ToJsonString());
    Console.Out.Flush();
    string? signal = received.Task.Wait(TimeSpan.FromSeconds(30)) ? received.Task.Result : null;
    Console.WriteLine(new JsonObject { ["signal"] = signal }.ToJsonString());
    return code;
}
