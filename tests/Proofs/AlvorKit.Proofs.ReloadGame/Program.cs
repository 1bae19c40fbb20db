using System.Globalization;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;
using ReloadGame;

// ReloadGame <dropFolder> [seconds]: one line per frame (about 50 a second) with what each
// editable method returns, and one `reload:` line per result of the drop folder's watcher.
// It stops after `seconds` (default 240) or when its stdin closes.
if (args.Length is < 1 or > 2)
{
    Console.Error.WriteLine("usage: ReloadGame <dropFolder> [seconds]");
    return 64;
}
double seconds = args.Length == 2 ? double.Parse(args[1], CultureInfo.InvariantCulture) : 240;

using Interceptor interceptor = Interceptor.Open();
using IDisposable watching = interceptor.Reload.WatchFolder(args[0], result => Console.WriteLine(Describe(result)));
Console.WriteLine($"ready tiered={Environment.GetEnvironmentVariable("DOTNET_TieredCompilation") ?? "default"}");

var stop = new CancellationTokenSource(TimeSpan.FromSeconds(seconds));
_ = Task.Run(() =>
{
    while (Console.ReadLine() is not null)
    {
    }
    stop.Cancel();
});
for (long frame = 0; !stop.IsCancellationRequested; frame++)
{
    Console.WriteLine(Frame.Line(frame));
    Thread.Sleep(20);
}
return 0;

static string Describe(ReloadResult r)
{
    IEnumerable<string> methods = r.Methods.Select(m => $"{m.State}:{m.Member}" + (m.Detail is null ? "" : $"({m.Detail})"));
    IEnumerable<string> refusals = r.Refusals.Select(f => $"{f.Reason}:{f.Member}:{f.Message}");
    return $"reload: {r.AssemblyName} {r.Outcome} methods=[{string.Join("; ", methods)}] " +
           $"refusals=[{string.Join("; ", refusals)}]";
}
