using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>Reading a HookReport's steps (the hook proofs' one report shape): a step by name, its value, or
/// what it threw; each fails the proof with the step (or the names there are) when it is not what is asked.</summary>
public static class HookSteps
{
    public static HookStep Step(HookReport r, string name) =>
        r.Steps.SingleOrDefault(s => s.Name == name) ??
        throw new Xunit.Sdk.XunitException($"no step '{name}' in the report: {string.Join(", ", r.Steps.Select(s => s.Name))}");

    public static long Value(HookReport r, string name)
    {
        HookStep step = Step(r, name);
        Assert.True(step.Threw is null, $"{name} threw {step.Threw}");
        Assert.True(step.Value is not null, $"{name} has no value: {step}");
        return step.Value.Value;
    }

    public static HookThrown Threw(HookReport r, string name)
    {
        HookStep step = Step(r, name);
        Assert.True(step.Threw is not null, $"{name} did not throw: {step}");
        return step.Threw;
    }
}
