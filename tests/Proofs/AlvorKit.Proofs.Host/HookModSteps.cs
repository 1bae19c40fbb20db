using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>A hook proof's report steps, in the order they were observed, and the mod's types by name.</summary>
internal sealed class HookModSteps(Assembly mod)
{
    public List<HookStep> All { get; } = [];

    public Type ModType(string name) => mod.GetType($"AlvorKit.Proofs.HookMod.{name}", throwOnError: true)!;

    public long ModValue(string type, string property) =>
        Convert.ToInt64(ModType(type).GetProperty(property)!.GetValue(null), CultureInfo.InvariantCulture);

    public void Call(string name, Func<long> call)
    {
        try
        {
            All.Add(new HookStep(name, call(), null, null));
        }
        catch (Exception e)
        {
            Threw(name, e);
        }
    }

    public void Count(string name, long value) => All.Add(new HookStep(name, value, null, null));

    public void Text(string name, string text) => All.Add(new HookStep(name, null, null, text));

    // Calls until `expected` or two seconds: Value is the last result, Text how many calls it took.
    public void Poll(string name, Func<long> call, long expected)
    {
        var clock = Stopwatch.StartNew();
        int calls = 0;
        long last;
        do
        {
            last = call();
            calls++;
        } while (last != expected && clock.Elapsed < TimeSpan.FromSeconds(2));
        All.Add(new HookStep(name, last, null, $"{calls} calls"));
    }

    /// <summary>What a step threw, with the fields of the API's exceptions that say what was refused.</summary>
    public void Threw(string name, Exception e)
    {
        string? top = e.StackTrace?.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .FirstOrDefault();
        HookThrown thrown = e switch
        {
            HookBindingException b => new HookThrown(e.GetType().Name, e.Message, top, e.InnerException?.GetType().Name,
                b.Kind.ToString(), b.ParameterIndex, b.Target?.Name, b.Hook?.Name),
            ReversePatchException r => new HookThrown(e.GetType().Name, e.Message, top, e.InnerException?.GetType().Name,
                r.Kind.ToString(), null, r.Original.Name, r.Member?.Name),
            TranspilerException t => new HookThrown(e.GetType().Name, e.Message, top, e.InnerException?.GetType().Name,
                null, null, t.Target.Name, t.Transpiler?.Name),
            _ => new HookThrown(e.GetType().Name, e.Message, top, e.InnerException?.GetType().Name, null, null, null, null),
        };
        All.Add(new HookStep(name, null, thrown, null));
    }
}
