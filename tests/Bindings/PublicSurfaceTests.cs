using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.Allocations;
using AlvorKit.Interception.Native;
using Xunit;

namespace AlvorKit.Bindings.Tests;

/// <summary>The game-facing assemblies speak their own types: no binding type (Alvk* structs and
/// enums, ProfilerLibrary) appears in anything public or protected, and the binding's test
/// hooks are not public.</summary>
public sealed class PublicSurfaceTests
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance |
                                          BindingFlags.Static | BindingFlags.DeclaredOnly;

    [Fact]
    public void TheApiAndAllocationsExposeNoBindingType()
    {
        var leaks = new List<string>();
        foreach (Assembly assembly in new[] { typeof(Interceptor).Assembly, typeof(AllocationCapture).Assembly })
            foreach (Type type in assembly.GetExportedTypes())
            {
                Check(type.BaseType, $"{type} base");
                foreach (Type i in type.GetInterfaces())
                    Check(i, $"{type} implements");
                foreach (MemberInfo member in type.GetMembers(Declared).Where(Visible))
                {
                    switch (member)
                    {
                        case FieldInfo f:
                            Check(f.FieldType, $"{type}.{f.Name}");
                            break;
                        case PropertyInfo p:
                            Check(p.PropertyType, $"{type}.{p.Name}");
                            break;
                        case MethodBase m:
                            if (m is MethodInfo mi)
                                Check(mi.ReturnType, $"{type}.{m.Name} returns");
                            foreach (ParameterInfo parameter in m.GetParameters())
                                Check(parameter.ParameterType, $"{type}.{m.Name}({parameter.Name})");
                            break;
                    }
                }
            }
        Assert.True(leaks.Count == 0, string.Join("\n", leaks));

        void Check(Type? type, string where)
        {
            for (; type is not null; type = type.HasElementType ? type.GetElementType() : null)
            {
                if (type.Namespace == typeof(ProfilerLibrary).Namespace)
                    leaks.Add($"{where}: {type}");
                foreach (Type argument in type.IsGenericType ? type.GetGenericArguments() : [])
                    Check(argument, where);
                if (!type.HasElementType)
                    break;
            }
        }
    }

    [Fact]
    public void TheAllocationEnumsMirrorTheBindingsAtTheirValues()
    {
        // AllocationCapture casts the native values to these public enums: same names, same values.
        AssertMirrors<AlvkAllocationProfiling, AllocationProfiling>();
        AssertMirrors<AlvkCapturePhase, AllocationCapturePhase>();
        AssertMirrors<AlvkCaptureMode, AllocationCaptureMode>();

        static void AssertMirrors<TNative, TPublic>() where TNative : struct, Enum where TPublic : struct, Enum
        {
            Assert.Equal(Enum.GetNames<TNative>(), Enum.GetNames<TPublic>());
            foreach (TNative value in Enum.GetValues<TNative>())
                Assert.Equal(Convert.ToInt64(value, null),
                    Convert.ToInt64(Enum.Parse<TPublic>(value.ToString()), null));
        }
    }

    [Fact]
    public void TheAllocationReportTypesCarryTheEstimateFields()
    {
        // The sampling contract: the per-type interval and the report's sampling facts are public.
        string[] typeAllocation = ["CountLow", "CountHigh", "BytesLow", "BytesHigh", "Samples", "ExactCount",
            "ExactBytes", "IsEstimate"];
        string[] report = ["Source", "IsEstimate", "SampledEvents", "LargeObjects", "LargeBytes", "PinnedObjects",
            "PinnedBytes", "SamplingStarted", "SessionStopPending", "SessionRefused", "ClosedBeforeSampling",
            "SessionHResult", "StackEvery"];
        Assert.Equal([], typeAllocation.Where(n => typeof(TypeAllocation).GetProperty(n) is null));
        Assert.Equal([], report.Where(n => typeof(AllocationReport).GetProperty(n) is null));
        Assert.Equal(typeof(TimeSpan?), typeof(AllocationReport).GetProperty("SamplingStarted")!.PropertyType);
        Assert.NotNull(typeof(AllocationWindow).GetMethod("WaitUntilSampling", [typeof(TimeSpan)]));
        Assert.Equal(typeof(AllocationCaptureState), typeof(AllocationCapture).GetMethod("GetState")!.ReturnType);
    }

    [Fact]
    public void TheBindingsTestHooksAreNotPublic()
    {
        MethodInfo[] hooks = typeof(ProfilerLibrary).GetMethods(Declared)
            .Where(m => m.Name.Contains("WithNull", StringComparison.Ordinal) ||
                        m.GetParameters().Any(p => p.Name is "size" or "relocationSize"))
            .ToArray();
        Assert.NotEmpty(hooks);
        Assert.All(hooks, m => Assert.False(m.IsPublic, $"{m} is public"));
    }

    private static bool Visible(MemberInfo member) => member switch
    {
        FieldInfo f => f.IsPublic || f.IsFamily || f.IsFamilyOrAssembly,
        MethodBase m => m.IsPublic || m.IsFamily || m.IsFamilyOrAssembly,
        PropertyInfo p => (p.GetMethod ?? p.SetMethod) is { } accessor && Visible(accessor),
        EventInfo e => e.AddMethod is { } add && Visible(add),
        Type t => t.IsNestedPublic || t.IsNestedFamily,
        _ => false,
    };
}
