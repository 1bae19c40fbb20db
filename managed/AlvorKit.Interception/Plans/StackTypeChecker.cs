using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Plans;

/// <summary>One instruction as the plan emitted it: its offset, the opcode it stands for (the
/// encoder may write a shorter or longer form) and its symbolic operand (an int, long, float,
/// double, PlanLabel, PlanLabel[], PlanLocal, MethodBase, FieldInfo, Type, string or
/// CalliSignature).</summary>
internal sealed record PlanInstruction(int Offset, OpCode OpCode, object? Operand);

/// <summary>A calli's signature, as EmitCalli was given it.</summary>
internal sealed record CalliSignature(bool HasThis, Type ReturnType, Type[] ParameterTypes,
    SignatureCallingConvention Convention = SignatureCallingConvention.Default);

/// <summary>An exception region, by the labels that start its try block, its handler and (a
/// filter region) its filter block.</summary>
internal sealed record PlanRegion(PlanRegionKind Kind, PlanLabel TryStart, PlanLabel HandlerStart, Type? CatchType,
    PlanLabel? FilterStart);

/// <summary>What the stack-type check needs of a plan.</summary>
internal sealed record PlanBody(MethodBase Target, string Title, IReadOnlyList<PlanInstruction> Code,
    IReadOnlyDictionary<int, int> LabelOffsets, IReadOnlyList<PlanRegion> Regions, IReadOnlyList<PlanLocal> Locals);

/// <summary>
/// The managed half of the stack-type check (ECMA-335 III.1.8), on a plan's symbolic
/// instructions with reflection's exact types: the type of each evaluation-stack slot at each
/// reachable instruction in flow order; merge points (same depth, compatible types: int32 with
/// native int; a reference with its base or null; unrelated classes, or a reference with a
/// class-constrained generic parameter, to a value of unknown type, never refused); try blocks entered empty, catch
/// handlers starting with the caught type; arguments, receivers and return values against
/// method signatures (reference assignability, exact value types and by-reference types);
/// locals, arguments, fields, array elements and type operands; arithmetic, comparison and
/// conversion operands. The implicit conversions of III.1.6 are allowed (native int for int32
/// and for managed pointers, int32 for native int). Types that contain generic parameters of a
/// generic target are compared only when they are the same type.
/// </summary>
internal static class StackTypeChecker
{
    /// <summary>Throws StackTypeMismatchException for the first mismatch found.</summary>
    public static void Check(PlanBody body) => new Machine(body).Run();

    /// <summary>The kind of the value on top of the stack before each reachable instruction (by
    /// offset; absent: unreachable or an empty stack). Throws like <see cref="Check"/>.</summary>
    public static Dictionary<int, Kind> TopBefore(PlanBody body)
    {
        var tops = new Dictionary<int, Kind>();
        void Observe(int offset, List<Slot> stack)
        {
            if (stack.Count > 0)
                tops[offset] = stack[^1].Kind;
        }
        new Machine(body) { Observe = Observe }.Run();
        return tops;
    }

    internal enum Kind
    {
        Int32,
        Int64,
        NativeInt,
        Float,
        Object,
        ByRef,
        Value,
        Generic,
        Unknown,
    }

    /// <summary>A stack slot: its kind and, for Object (null: the null literal), ByRef (the
    /// element type), Value and Generic, its exact type.</summary>
    internal sealed record Slot(Kind Kind, Type? Type = null)
    {
        public static readonly Slot I4 = new(Kind.Int32), I8 = new(Kind.Int64), I = new(Kind.NativeInt),
            F = new(Kind.Float), Null = new(Kind.Object), Any = new(Kind.Unknown);

        public static Slot Of(Type type)
        {
            if (type.IsByRef)
                return new Slot(Kind.ByRef, type.GetElementType());
            if (type.IsPointer || type.IsFunctionPointer || type == typeof(nint) || type == typeof(nuint))
                return I;
            if (type.IsGenericParameter)
                return new Slot(Kind.Generic, type);
            if (type.IsEnum)
            {
                try
                {
                    type = type.GetEnumUnderlyingType();
                }
                catch (ArgumentException)
                {
                    return Any;
                }
            }
            if (type == typeof(bool) || type == typeof(char) || type == typeof(sbyte) || type == typeof(byte) ||
                type == typeof(short) || type == typeof(ushort) || type == typeof(int) || type == typeof(uint))
                return I4;
            if (type == typeof(long) || type == typeof(ulong))
                return I8;
            if (type == typeof(float) || type == typeof(double))
                return F;
            if (type == typeof(void))
                return Any;
            return type.IsValueType ? new Slot(Kind.Value, type) : new Slot(Kind.Object, type);
        }
    }

    internal static StackType StackTypeOf(Kind kind) => kind switch
    {
        Kind.Int32 => StackType.Int32,
        Kind.Int64 => StackType.Int64,
        Kind.NativeInt => StackType.NativeInt,
        Kind.Float => StackType.Float,
        Kind.Object => StackType.ObjectReference,
        Kind.ByRef => StackType.ManagedPointer,
        Kind.Value => StackType.ValueType,
        Kind.Generic => StackType.GenericParameter,
        _ => StackType.Int32,
    };

    internal static string Describe(Slot s) => s.Kind switch
    {
        Kind.Int32 => "int32",
        Kind.Int64 => "int64",
        Kind.NativeInt => "native int",
        Kind.Float => "F (a float or double)",
        Kind.Object => s.Type is null ? "null" : $"an object reference ({Names.Of(s.Type)})",
        Kind.ByRef => $"a managed pointer (ref {Names.Of(s.Type)})",
        Kind.Value => $"a {Names.Of(s.Type)} value",
        Kind.Generic => $"a {Names.Of(s.Type)} (a generic parameter)",
        _ => "a value",
    };

    /// <summary>What a location of `type` holds, in words: "string (an object reference)".</summary>
    internal static string DescribeLocation(Type type)
    {
        Slot s = Slot.Of(type);
        string what = s.Kind switch
        {
            Kind.Int32 or Kind.Int64 or Kind.NativeInt => Describe(s),
            Kind.Float => "F",
            Kind.Object => "an object reference",
            Kind.ByRef => "a managed pointer",
            Kind.Value => "a value type",
            Kind.Generic => "a generic parameter",
            _ => "a value",
        };
        return $"{Names.Of(type)} ({what})";
    }

    private sealed class Machine
    {
        private const int MaxDepth = 1024;

        private readonly PlanBody _body;
        private readonly PlanInstruction[] _code;
        private readonly Dictionary<int, int> _index = new();
        private readonly Slot[] _arguments;
        private readonly Type[] _argumentTypes;
        private readonly Type _returnType;
        private readonly Dictionary<int, Slot[]> _entries = new();
        private readonly HashSet<int> _leaders = [];
        private readonly HashSet<int> _tryStarts = [];
        // The blocks to visit again, last in first out (a list as the stack: its code is precompiled, Stack's over
        // int is not).
        private readonly List<int> _work = [];
        private readonly HashSet<int> _queued = [];
        private readonly List<Slot> _stack = [];

        /// <summary>Called with each instruction's offset and the stack before it.</summary>
        public Action<int, List<Slot>>? Observe { get; init; }

        public Machine(PlanBody body)
        {
            _body = body;
            _code = [.. body.Code];
            for (int i = 0; i < _code.Length; i++)
                _index[_code[i].Offset] = i;
            MethodBase target = body.Target;
            var types = new List<Type>();
            if (!target.IsStatic)
            {
                Type declaring = target.DeclaringType!;
                types.Add(declaring.IsValueType ? declaring.MakeByRefType() : declaring);
            }
            types.AddRange(target.GetParameters().Select(p => p.ParameterType));
            _argumentTypes = [.. types];
            _arguments = [.. types.Select(Slot.Of)];
            _returnType = ReplacementRules.ReturnTypeOf(target);
        }

        public void Run()
        {
            if (_code.Length == 0)
                return;
            FindLeaders();
            Merge(0, [], _code[0]);
            foreach (PlanRegion region in _body.Regions)
            {
                // A filter block and its handler both start with the exception object.
                if (region.FilterStart is { } filterStart && Index(filterStart, out int filter))
                    Merge(filter, [Slot.Of(typeof(object))], _code[filter]);
                if (!Index(region.HandlerStart, out int handler))
                    continue;
                Slot[] start = region.Kind switch
                {
                    PlanRegionKind.Catch => [new Slot(Kind.Object, region.CatchType ?? typeof(Exception))],
                    PlanRegionKind.Filter => [Slot.Of(typeof(object))],
                    _ => [],
                };
                Merge(handler, start, _code[handler]);
            }
            int budget = _leaders.Count * 64 + 1024;
            while (_work.Count > 0 && budget-- > 0)
            {
                int leader = _work[^1];
                _work.RemoveAt(_work.Count - 1);
                _queued.Remove(leader);
                RunBlock(leader);
            }
        }

        private bool Index(PlanLabel label, out int index)
        {
            index = -1;
            return _body.LabelOffsets.TryGetValue(label.Id, out int offset) && _index.TryGetValue(offset, out index);
        }

        private void FindLeaders()
        {
            _leaders.Add(0);
            for (int i = 0; i < _code.Length; i++)
            {
                PlanInstruction ins = _code[i];
                foreach (PlanLabel label in Targets(ins))
                    if (Index(label, out int target))
                        _leaders.Add(target);
                if (EndsBlock(ins.OpCode) && i + 1 < _code.Length)
                    _leaders.Add(i + 1);
            }
            foreach (PlanRegion region in _body.Regions)
            {
                if (Index(region.TryStart, out int start))
                {
                    _leaders.Add(start);
                    _tryStarts.Add(start);
                }
                if (Index(region.HandlerStart, out int handler))
                    _leaders.Add(handler);
                if (region.FilterStart is { } filterStart && Index(filterStart, out int filter))
                    _leaders.Add(filter);
            }
        }

        private static PlanLabel[] Targets(PlanInstruction ins) => ins.Operand switch
        {
            PlanLabel label => [label],
            PlanLabel[] labels => labels,
            _ => [],
        };

        private static bool EndsBlock(OpCode op) =>
            op.FlowControl is FlowControl.Branch or FlowControl.Cond_Branch or FlowControl.Return or FlowControl.Throw ||
            op == OpCodes.Endfinally || op == OpCodes.Jmp;

        private void RunBlock(int leader)
        {
            _stack.Clear();
            _stack.AddRange(_entries[leader]);
            for (int i = leader; i < _code.Length;)
            {
                Observe?.Invoke(_code[i].Offset, _stack);
                if (!Execute(_code[i]))
                    return;
                if (++i >= _code.Length)
                    return; // falls off the end: the JIT refuses it; not a type error
                if (_leaders.Contains(i))
                {
                    Merge(i, [.. _stack], _code[i]);
                    return;
                }
            }
        }

        // ------------------------------------------------------------------ merging

        private void Merge(int index, Slot[] incoming, PlanInstruction at)
        {
            if (_tryStarts.Contains(index) && incoming.Length > 0)
                throw Fail(at, incoming[^1], null, StackType.Nothing,
                    "starts a try block, which must be entered with an empty stack, but is reached with " +
                    $"{Describe(incoming[^1])} on it");
            bool changed;
            if (!_entries.TryGetValue(index, out Slot[]? existing))
            {
                _entries[index] = incoming;
                changed = true;
            }
            else
            {
                if (existing.Length != incoming.Length)
                {
                    Slot? found = incoming.Length > existing.Length ? incoming[^1] : null;
                    Slot? expected = existing.Length > incoming.Length ? existing[^1] : null;
                    throw Fail(at, found, null, expected is { } e ? StackTypeOf(e.Kind) : StackType.Nothing,
                        $"is reached with {incoming.Length} value(s) on the stack on one path and {existing.Length} on " +
                        "another (every path must bring the same stack)");
                }
                var merged = new Slot[existing.Length];
                changed = false;
                for (int i = 0; i < existing.Length; i++)
                {
                    if (!TryMerge(existing[i], incoming[i], out merged[i]))
                        throw Fail(at, incoming[i], null, StackTypeOf(existing[i].Kind),
                            $"is reached with {Describe(incoming[i])} in stack slot {i} on one path and " +
                            $"{Describe(existing[i])} on another");
                    changed |= merged[i] != existing[i];
                }
                if (changed)
                    _entries[index] = merged;
            }
            if (changed && _queued.Add(index))
                _work.Add(index);
        }

        private static bool TryMerge(Slot a, Slot b, out Slot merged)
        {
            merged = a;
            if (a == b)
                return true;
            if (a.Kind == Kind.Unknown || b.Kind == Kind.Unknown)
            {
                merged = Slot.Any;
                return true;
            }
            if (IsInt(a.Kind) && IsInt(b.Kind) || (a.Kind, b.Kind) is (Kind.ByRef, Kind.NativeInt) or (Kind.NativeInt, Kind.ByRef))
            {
                merged = Slot.I;
                return true;
            }
            // null, or an object, meeting a reference-constrained generic parameter (the shape of
            // `cond ? t : null`): the parameter, for null; for an object, nothing more is known.
            if ((a.Kind, b.Kind) is (Kind.Object, Kind.Generic) or (Kind.Generic, Kind.Object))
            {
                Slot generic = a.Kind == Kind.Generic ? a : b, other = a.Kind == Kind.Generic ? b : a;
                if (!ReferenceConstrained(generic.Type))
                    return false;
                merged = other.Type is null ? generic : Slot.Any;
                return true;
            }
            if (a.Kind != b.Kind)
                return false;
            switch (a.Kind)
            {
                case Kind.Object:
                    if (a.Type is null || b.Type is null)
                    {
                        merged = a.Type is null ? b : a;
                        return true;
                    }
                    if (Open(a.Type) || Open(b.Type))
                    {
                        merged = Slot.Any;
                        return true;
                    }
                    // Two classes neither of which is the other's base: their common base class
                    // would lose the interfaces both implement (List<int> and HashSet<int> are
                    // both IEnumerable<int>), so the merged reference's class is left unknown.
                    merged = a.Type.IsAssignableFrom(b.Type) ? a
                        : b.Type.IsAssignableFrom(a.Type) ? b
                        : Slot.Any;
                    return true;
                case Kind.ByRef:
                    return SameElement(a.Type!, b.Type!);
                case Kind.Value:
                case Kind.Generic:
                    return Same(a.Type!, b.Type!);
                default:
                    return false;
            }
        }

        // ------------------------------------------------------------------ types

        private static bool IsInt(Kind k) => k is Kind.Int32 or Kind.NativeInt;

        private static bool Open(Type? t) => t is not null && t.ContainsGenericParameters;

        private static bool Same(Type a, Type b) => a == b || Open(a) && Open(b) && !a.IsGenericParameter && !b.IsGenericParameter;

        /// <summary>Managed pointers to the same type, or to types of one primitive stack type and
        /// size (ref int and ref uint, ref int and ref of an int enum).</summary>
        private static bool SameElement(Type a, Type b)
        {
            if (Same(a, b))
                return true;
            Slot sa = Slot.Of(a), sb = Slot.Of(b);
            if (sa.Kind != sb.Kind || sa.Kind is not (Kind.Int32 or Kind.Int64 or Kind.NativeInt or Kind.Float))
                return false;
            Type ua = a.IsEnum ? a.GetEnumUnderlyingType() : a, ub = b.IsEnum ? b.GetEnumUnderlyingType() : b;
            return !ua.IsPrimitive || !ub.IsPrimitive || SizeOf(ua) == SizeOf(ub);
        }

        private static int SizeOf(Type primitive) => primitive == typeof(bool) || primitive == typeof(byte) || primitive == typeof(sbyte) ? 1
            : primitive == typeof(char) || primitive == typeof(short) || primitive == typeof(ushort) ? 2
            : primitive == typeof(int) || primitive == typeof(uint) || primitive == typeof(float) ? 4
            : 8;

        private static bool ReferenceConstrained(Type? generic) =>
            generic is { IsGenericParameter: true } &&
            (generic.GenericParameterAttributes & GenericParameterAttributes.ReferenceTypeConstraint) != 0;

        /// <summary>Whether a value fits a location of `type` (ECMA-335 III.1.6 and assignability).</summary>
        private static bool Fits(Slot value, Type type)
        {
            if (value.Kind == Kind.Unknown)
                return true;
            Slot location = Slot.Of(type);
            return location.Kind switch
            {
                Kind.Int32 => value.Kind is Kind.Int32 or Kind.NativeInt,
                Kind.Int64 => value.Kind == Kind.Int64,
                Kind.NativeInt => value.Kind is Kind.Int32 or Kind.NativeInt or Kind.ByRef,
                Kind.Float => value.Kind == Kind.Float,
                Kind.Object => value.Kind == Kind.Object && (value.Type is null || Assignable(location.Type!, value.Type)) ||
                               value.Kind == Kind.Generic && (ReferenceConstrained(value.Type) || Open(location.Type)),
                Kind.ByRef => value.Kind == Kind.NativeInt || value.Kind == Kind.ByRef && SameElement(location.Type!, value.Type!),
                Kind.Value => value.Kind == Kind.Value && Same(location.Type!, value.Type!),
                Kind.Generic => value.Kind == Kind.Generic && value.Type == location.Type ||
                                value is { Kind: Kind.Object, Type: null } && ReferenceConstrained(location.Type),
                _ => true,
            };
        }

        private static bool Assignable(Type location, Type value) =>
            location == value || Open(location) || Open(value) || location.IsAssignableFrom(value);

        // --------------------------------------------------------------- operations

        private StackTypeMismatchException Fail(PlanInstruction at, Slot? found, Type? expectedType, StackType expected,
            string problem)
        {
            string name = _body.Title;
            string message =
                $"Plan for {name}: the body is not type-safe: IL_{at.Offset:X4} {at.OpCode.Name} {problem}. The JIT does " +
                "not verify IL, so this body would corrupt the process; nothing reached the profiler. (A body that is " +
                "deliberately unverifiable and correct can be applied with plan.AllowUnverifiable().)";
            Type? foundType = found switch
            {
                { Kind: Kind.Object or Kind.Value or Kind.Generic } v => v.Type,
                { Kind: Kind.ByRef, Type: { IsByRef: false } element } => element.MakeByRefType(),
                _ => null,
            };
            return new StackTypeMismatchException(_body.Target, at.Offset, at.OpCode.Name ?? "",
                found is { } f ? StackTypeOf(f.Kind) : StackType.Nothing, expected, foundType, expectedType, message);
        }

        private StackTypeMismatchException Wrong(PlanInstruction at, Slot found, Type location, string what) =>
            Fail(at, found, location, StackTypeOf(Slot.Of(location).Kind),
                $"finds {Describe(found)} where {what} needs {DescribeLocation(location)}");

        private StackTypeMismatchException Wrong(PlanInstruction at, Slot found, StackType expected, string needs) =>
            Fail(at, found, null, expected, $"finds {Describe(found)} where it needs {needs}");

        /// <summary>The top `n` values must be there; `first` describes the deepest one.</summary>
        private void Need(PlanInstruction at, int n, StackType expected, string first, Type? type = null)
        {
            if (_stack.Count < n)
                throw Fail(at, null, type, expected,
                    $"needs {n} value(s) on the stack but finds {_stack.Count} (missing: {first})");
        }

        private Slot Pop() => Pop(1)[0];

        private Slot[] Pop(int n)
        {
            Slot[] values = [.. _stack.GetRange(_stack.Count - n, n)];
            _stack.RemoveRange(_stack.Count - n, n);
            return values;
        }

        private void Push(Slot s)
        {
            if (_stack.Count >= MaxDepth)
                throw new PlanException(_body.Target, $"Plan for {_body.Title}: the stack grows past {MaxDepth} values.");
            _stack.Add(s);
        }

        private void Store(PlanInstruction at, Type location, string what)
        {
            Need(at, 1, StackTypeOf(Slot.Of(location).Kind), DescribeLocation(location), location);
            Slot value = Pop();
            if (!Fits(value, location))
                throw Wrong(at, value, location, what);
        }

        private void Expect(PlanInstruction at, Slot value, Func<Slot, bool> ok, StackType expected, string needs)
        {
            if (value.Kind != Kind.Unknown && !ok(value))
                throw Wrong(at, value, expected, needs);
        }

        /// <summary>volatile. and unaligned. may only precede a memory access (ECMA-335 III.2.5,
        /// III.2.6), possibly through the other of the two prefixes.</summary>
        private void Prefixes(PlanInstruction at, ILOpCode prefix)
        {
            int next = _index[at.Offset] + 1;
            while (next < _code.Length && (ILOpCode)(ushort)_code[next].OpCode.Value is ILOpCode.Volatile or ILOpCode.Unaligned)
                next++;
            ILOpCode access = next < _code.Length ? (ILOpCode)(ushort)_code[next].OpCode.Value : ILOpCode.Nop;
            bool memory = access is (>= ILOpCode.Ldind_i1 and <= ILOpCode.Ldind_ref) or (>= ILOpCode.Stind_ref and <= ILOpCode.Stind_r8)
                or ILOpCode.Ldind_i or ILOpCode.Stind_i or ILOpCode.Ldfld or ILOpCode.Stfld or ILOpCode.Ldobj
                or ILOpCode.Stobj or ILOpCode.Initblk or ILOpCode.Cpblk ||
                (prefix == ILOpCode.Volatile && access is ILOpCode.Ldsfld or ILOpCode.Stsfld);
            if (!memory)
                throw Fail(at, null, null, StackType.Nothing,
                    $"is a prefix of {(next < _code.Length ? _code[next].OpCode.Name : "nothing")}, but it may only precede " +
                    "an indirect load or store, ldfld, stfld, ldobj, stobj, initblk or cpblk" +
                    (prefix == ILOpCode.Volatile ? " (or ldsfld, stsfld)" : ""));
        }

        private static bool Address(Slot s) => s.Kind is Kind.ByRef or Kind.NativeInt;

        private static bool Integer(Slot s) => s.Kind is Kind.Int32 or Kind.NativeInt;

        private static bool Reference(Slot s) => s.Kind == Kind.Object || s.Kind == Kind.Generic && ReferenceConstrained(s.Type);

        private void Branch(PlanLabel label, PlanInstruction at)
        {
            if (Index(label, out int target))
                Merge(target, [.. _stack], _code[target]);
        }

        private bool Execute(PlanInstruction at)
        {
            ILOpCode code = (ILOpCode)(ushort)at.OpCode.Value;
            switch (code)
            {
                case ILOpCode.Volatile or ILOpCode.Unaligned:
                    Prefixes(at, code);
                    return true;
                case ILOpCode.Nop or ILOpCode.Break or ILOpCode.Tail or ILOpCode.Readonly or ILOpCode.Constrained:
                    return true;
                case ILOpCode.Ldarg_0 or ILOpCode.Ldarg_1 or ILOpCode.Ldarg_2 or ILOpCode.Ldarg_3:
                    Push(Argument(code - ILOpCode.Ldarg_0));
                    return true;
                case ILOpCode.Ldarg or ILOpCode.Ldarg_s:
                    Push(Argument((int)at.Operand!));
                    return true;
                case ILOpCode.Ldarga or ILOpCode.Ldarga_s:
                    Push(ArgumentType((int)at.Operand!) is { } a ? new Slot(Kind.ByRef, a) : Slot.Any);
                    return true;
                case ILOpCode.Starg or ILOpCode.Starg_s:
                    if (ArgumentType((int)at.Operand!) is { } argument)
                        Store(at, argument, $"argument {(int)at.Operand!}");
                    else
                        Pop();
                    return true;
                case ILOpCode.Ldloc_0 or ILOpCode.Ldloc_1 or ILOpCode.Ldloc_2 or ILOpCode.Ldloc_3:
                    Push(LocalType(code - ILOpCode.Ldloc_0) is { } l0 ? Slot.Of(l0) : Slot.Any);
                    return true;
                case ILOpCode.Ldloc or ILOpCode.Ldloc_s:
                    Push(LocalType(LocalIndex(at)) is { } l ? Slot.Of(l) : Slot.Any);
                    return true;
                case ILOpCode.Ldloca or ILOpCode.Ldloca_s:
                    Push(LocalType(LocalIndex(at)) is { } la ? new Slot(Kind.ByRef, la) : Slot.Any);
                    return true;
                case ILOpCode.Stloc_0 or ILOpCode.Stloc_1 or ILOpCode.Stloc_2 or ILOpCode.Stloc_3:
                    StoreLocal(at, code - ILOpCode.Stloc_0);
                    return true;
                case ILOpCode.Stloc or ILOpCode.Stloc_s:
                    StoreLocal(at, LocalIndex(at));
                    return true;
                case ILOpCode.Ldnull:
                    Push(Slot.Null);
                    return true;
                case ILOpCode.Ldstr:
                    Push(Slot.Of(typeof(string)));
                    return true;
                case >= ILOpCode.Ldc_i4_m1 and <= ILOpCode.Ldc_i4:
                case ILOpCode.Sizeof:
                    Push(Slot.I4);
                    return true;
                case ILOpCode.Ldc_i8:
                    Push(Slot.I8);
                    return true;
                case ILOpCode.Ldc_r4 or ILOpCode.Ldc_r8:
                    Push(Slot.F);
                    return true;
                case ILOpCode.Dup:
                    Need(at, 1, StackType.Int32, "a value");
                    Push(_stack[^1]);
                    return true;
                case ILOpCode.Pop:
                    Need(at, 1, StackType.Int32, "a value");
                    Pop();
                    return true;
                case ILOpCode.Jmp or ILOpCode.Rethrow or ILOpCode.Endfinally:
                    return false;
                case ILOpCode.Call or ILOpCode.Callvirt or ILOpCode.Newobj:
                    Call(at, (MethodBase)at.Operand!, code == ILOpCode.Newobj);
                    return true;
                case ILOpCode.Calli:
                    Calli(at, (CalliSignature)at.Operand!);
                    return true;
                case ILOpCode.Ret:
                    Return(at);
                    return false;
                case ILOpCode.Br or ILOpCode.Br_s:
                    Branch((PlanLabel)at.Operand!, at);
                    return false;
                case ILOpCode.Leave or ILOpCode.Leave_s:
                    _stack.Clear();
                    Branch((PlanLabel)at.Operand!, at);
                    return false;
                case ILOpCode.Brtrue or ILOpCode.Brtrue_s or ILOpCode.Brfalse or ILOpCode.Brfalse_s:
                    Need(at, 1, StackType.Int32, "the value to test");
                    Expect(at, Pop(), s => s.Kind != Kind.Value, StackType.Int32, "a number, a reference or a pointer to test");
                    Branch((PlanLabel)at.Operand!, at);
                    return true;
                case >= ILOpCode.Beq and <= ILOpCode.Blt_un:
                case >= ILOpCode.Beq_s and <= ILOpCode.Blt_un_s:
                    Compare(at);
                    Branch((PlanLabel)at.Operand!, at);
                    return true;
                case ILOpCode.Switch:
                    Need(at, 1, StackType.Int32, "the switch value");
                    Expect(at, Pop(), Integer, StackType.Int32, "an int32 switch value");
                    foreach (PlanLabel label in (PlanLabel[])at.Operand!)
                        Branch(label, at);
                    return true;
                case >= ILOpCode.Ldind_i1 and <= ILOpCode.Ldind_ref:
                    Need(at, 1, StackType.ManagedPointer, "an address");
                    Slot address = Pop();
                    Expect(at, address, Address, StackType.ManagedPointer, "an address (a managed pointer or native int)");
                    Push(code switch
                    {
                        ILOpCode.Ldind_i8 => Slot.I8,
                        ILOpCode.Ldind_i => Slot.I,
                        ILOpCode.Ldind_r4 or ILOpCode.Ldind_r8 => Slot.F,
                        ILOpCode.Ldind_ref => address is { Kind: Kind.ByRef, Type: { } t } && Slot.Of(t).Kind == Kind.Object
                            ? Slot.Of(t)
                            : Slot.Of(typeof(object)),
                        _ => Slot.I4,
                    });
                    return true;
                case ILOpCode.Stind_ref or (>= ILOpCode.Stind_i1 and <= ILOpCode.Stind_r8) or ILOpCode.Stind_i:
                    StoreIndirect(at, code switch
                    {
                        ILOpCode.Stind_ref => typeof(object),
                        ILOpCode.Stind_i8 => typeof(long),
                        ILOpCode.Stind_r4 => typeof(float),
                        ILOpCode.Stind_r8 => typeof(double),
                        ILOpCode.Stind_i => typeof(nint),
                        _ => typeof(int),
                    });
                    return true;
                case ILOpCode.Add or ILOpCode.Sub or ILOpCode.Mul or ILOpCode.Div or ILOpCode.Rem or ILOpCode.Div_un
                    or ILOpCode.Rem_un or ILOpCode.And or ILOpCode.Or or ILOpCode.Xor or ILOpCode.Add_ovf
                    or ILOpCode.Add_ovf_un or ILOpCode.Sub_ovf or ILOpCode.Sub_ovf_un or ILOpCode.Mul_ovf
                    or ILOpCode.Mul_ovf_un:
                    Arithmetic(at, code);
                    return true;
                case ILOpCode.Shl or ILOpCode.Shr or ILOpCode.Shr_un:
                {
                    Need(at, 2, StackType.Int32, "the value and the shift amount");
                    Slot[] v = Pop(2);
                    Expect(at, v[0], s => s.Kind is Kind.Int32 or Kind.Int64 or Kind.NativeInt, StackType.Int32, "an integer to shift");
                    Expect(at, v[1], Integer, StackType.Int32, "an int32 or native int shift amount");
                    Push(v[0]);
                    return true;
                }
                case ILOpCode.Neg or ILOpCode.Not:
                {
                    Need(at, 1, StackType.Int32, "a number");
                    Slot v = Pop();
                    Expect(at, v, s => s.Kind is Kind.Int32 or Kind.Int64 or Kind.NativeInt || s.Kind == Kind.Float && code == ILOpCode.Neg,
                        StackType.Int32, code == ILOpCode.Neg ? "a number" : "an integer");
                    Push(v);
                    return true;
                }
                case ILOpCode.Ckfinite:
                    Need(at, 1, StackType.Float, "a float or double");
                    Expect(at, _stack[^1], s => s.Kind == Kind.Float, StackType.Float, "F (a float or double)");
                    return true;
                case ILOpCode.Conv_i1 or ILOpCode.Conv_i2 or ILOpCode.Conv_i4 or ILOpCode.Conv_u1 or ILOpCode.Conv_u2
                    or ILOpCode.Conv_u4 or ILOpCode.Conv_ovf_i1 or ILOpCode.Conv_ovf_i2 or ILOpCode.Conv_ovf_i4
                    or ILOpCode.Conv_ovf_u1 or ILOpCode.Conv_ovf_u2 or ILOpCode.Conv_ovf_u4 or ILOpCode.Conv_ovf_i1_un
                    or ILOpCode.Conv_ovf_i2_un or ILOpCode.Conv_ovf_i4_un or ILOpCode.Conv_ovf_u1_un
                    or ILOpCode.Conv_ovf_u2_un or ILOpCode.Conv_ovf_u4_un:
                    Convert(at, Slot.I4);
                    return true;
                case ILOpCode.Conv_i8 or ILOpCode.Conv_u8 or ILOpCode.Conv_ovf_i8 or ILOpCode.Conv_ovf_u8
                    or ILOpCode.Conv_ovf_i8_un or ILOpCode.Conv_ovf_u8_un:
                    Convert(at, Slot.I8);
                    return true;
                case ILOpCode.Conv_i or ILOpCode.Conv_u or ILOpCode.Conv_ovf_i or ILOpCode.Conv_ovf_u
                    or ILOpCode.Conv_ovf_i_un or ILOpCode.Conv_ovf_u_un:
                    Convert(at, Slot.I);
                    return true;
                case ILOpCode.Conv_r4 or ILOpCode.Conv_r8 or ILOpCode.Conv_r_un:
                    Convert(at, Slot.F);
                    return true;
                case ILOpCode.Ceq or ILOpCode.Cgt or ILOpCode.Cgt_un or ILOpCode.Clt or ILOpCode.Clt_un:
                    Compare(at);
                    Push(Slot.I4);
                    return true;
                case ILOpCode.Ldfld or ILOpCode.Ldflda or ILOpCode.Stfld or ILOpCode.Ldsfld or ILOpCode.Ldsflda
                    or ILOpCode.Stsfld:
                    Field(at, code, (FieldInfo)at.Operand!);
                    return true;
                case ILOpCode.Box:
                {
                    Type type = (Type)at.Operand!;
                    Store(at, type, "box");
                    Push(new Slot(Kind.Object, type));
                    return true;
                }
                case ILOpCode.Unbox or ILOpCode.Unbox_any or ILOpCode.Castclass or ILOpCode.Isinst:
                {
                    Type type = (Type)at.Operand!;
                    Need(at, 1, StackType.ObjectReference, "an object reference");
                    Expect(at, Pop(), Reference, StackType.ObjectReference, "an object reference");
                    Push(code switch
                    {
                        ILOpCode.Unbox => new Slot(Kind.ByRef, type),
                        ILOpCode.Unbox_any => Slot.Of(type),
                        _ => type.IsGenericParameter ? Slot.Of(type) : new Slot(Kind.Object, type),
                    });
                    return true;
                }
                case ILOpCode.Throw:
                    Need(at, 1, StackType.ObjectReference, "the exception");
                    Expect(at, Pop(), Reference, StackType.ObjectReference, "an exception object reference");
                    return false;
                case ILOpCode.Newarr:
                    Need(at, 1, StackType.Int32, "the length");
                    Expect(at, Pop(), Integer, StackType.Int32, "an int32 or native int length");
                    Push(new Slot(Kind.Object, ((Type)at.Operand!).MakeArrayType()));
                    return true;
                case ILOpCode.Ldlen:
                    Need(at, 1, StackType.ObjectReference, "an array");
                    Expect(at, Pop(), s => s.Kind == Kind.Object, StackType.ObjectReference, "an array reference");
                    Push(Slot.I);
                    return true;
                case ILOpCode.Ldelema or ILOpCode.Ldelem or (>= ILOpCode.Ldelem_i1 and <= ILOpCode.Ldelem_ref):
                {
                    Need(at, 2, StackType.ObjectReference, "the array and the index");
                    Slot[] v = Pop(2);
                    Expect(at, v[0], s => s.Kind == Kind.Object, StackType.ObjectReference, "an array reference");
                    Expect(at, v[1], Integer, StackType.Int32, "an int32 or native int index");
                    Push(code switch
                    {
                        ILOpCode.Ldelema => new Slot(Kind.ByRef, (Type)at.Operand!),
                        ILOpCode.Ldelem => Slot.Of((Type)at.Operand!),
                        ILOpCode.Ldelem_i8 => Slot.I8,
                        ILOpCode.Ldelem_i => Slot.I,
                        ILOpCode.Ldelem_r4 or ILOpCode.Ldelem_r8 => Slot.F,
                        ILOpCode.Ldelem_ref => v[0].Type is { IsArray: true } array && Slot.Of(array.GetElementType()!).Kind == Kind.Object
                            ? Slot.Of(array.GetElementType()!)
                            : Slot.Of(typeof(object)),
                        _ => Slot.I4,
                    });
                    return true;
                }
                case ILOpCode.Stelem or (>= ILOpCode.Stelem_i and <= ILOpCode.Stelem_ref):
                {
                    Type element = code switch
                    {
                        ILOpCode.Stelem => (Type)at.Operand!,
                        ILOpCode.Stelem_i8 => typeof(long),
                        ILOpCode.Stelem_r4 => typeof(float),
                        ILOpCode.Stelem_r8 => typeof(double),
                        ILOpCode.Stelem_i => typeof(nint),
                        ILOpCode.Stelem_ref => typeof(object),
                        _ => typeof(int),
                    };
                    Need(at, 3, StackType.ObjectReference, "the array, the index and the value");
                    Slot[] v = Pop(3);
                    Expect(at, v[0], s => s.Kind == Kind.Object, StackType.ObjectReference, "an array reference");
                    Expect(at, v[1], Integer, StackType.Int32, "an int32 or native int index");
                    if (!Fits(v[2], element) && !(code == ILOpCode.Stelem_ref && Reference(v[2])))
                        throw Wrong(at, v[2], element, "the array element");
                    return true;
                }
                case ILOpCode.Ldobj:
                    Need(at, 1, StackType.ManagedPointer, "an address");
                    Expect(at, Pop(), Address, StackType.ManagedPointer, "an address (a managed pointer or native int)");
                    Push(Slot.Of((Type)at.Operand!));
                    return true;
                case ILOpCode.Stobj:
                {
                    Type type = (Type)at.Operand!;
                    Need(at, 2, StackType.ManagedPointer, "the address and the value");
                    Slot[] v = Pop(2);
                    if (!Fits(v[1], type))
                        throw Wrong(at, v[1], type, "stobj");
                    Expect(at, v[0], Address, StackType.ManagedPointer, "an address (a managed pointer or native int)");
                    return true;
                }
                case ILOpCode.Cpobj:
                {
                    Need(at, 2, StackType.ManagedPointer, "two addresses");
                    Slot[] v = Pop(2);
                    Expect(at, v[0], Address, StackType.ManagedPointer, "an address");
                    Expect(at, v[1], Address, StackType.ManagedPointer, "an address");
                    return true;
                }
                case ILOpCode.Initobj:
                    Need(at, 1, StackType.ManagedPointer, "an address");
                    Expect(at, Pop(), Address, StackType.ManagedPointer, "an address (a managed pointer or native int)");
                    return true;
                case ILOpCode.Ldtoken:
                    Push(Slot.Of(at.Operand switch
                    {
                        Type => typeof(RuntimeTypeHandle),
                        FieldInfo => typeof(RuntimeFieldHandle),
                        _ => typeof(RuntimeMethodHandle),
                    }));
                    return true;
                case ILOpCode.Ldftn:
                    Push(Slot.I);
                    return true;
                case ILOpCode.Ldvirtftn:
                    Need(at, 1, StackType.ObjectReference, "the object");
                    Expect(at, Pop(), Reference, StackType.ObjectReference, "an object reference");
                    Push(Slot.I);
                    return true;
                case ILOpCode.Localloc:
                    Need(at, 1, StackType.Int32, "the size");
                    Expect(at, Pop(), Integer, StackType.Int32, "an int32 or native int size");
                    Push(Slot.I);
                    return true;
                case ILOpCode.Endfilter:
                    Need(at, 1, StackType.Int32, "the filter's result");
                    Expect(at, Pop(), s => s.Kind == Kind.Int32, StackType.Int32, "an int32");
                    return false;
                case ILOpCode.Cpblk or ILOpCode.Initblk:
                {
                    Need(at, 3, StackType.ManagedPointer, "an address, a value or address, and a size");
                    Slot[] v = Pop(3);
                    Expect(at, v[0], Address, StackType.ManagedPointer, "an address");
                    Expect(at, v[2], Integer, StackType.Int32, "an int32 size");
                    return true;
                }
                case ILOpCode.Arglist:
                    Push(Slot.Of(typeof(RuntimeArgumentHandle)));
                    return true;
                case ILOpCode.Mkrefany:
                    Need(at, 1, StackType.ManagedPointer, "an address");
                    Expect(at, Pop(), Address, StackType.ManagedPointer, "an address");
                    Push(new Slot(Kind.Value, typeof(TypedReference)));
                    return true;
                case ILOpCode.Refanyval or ILOpCode.Refanytype:
                    Need(at, 1, StackType.ValueType, "a TypedReference");
                    Expect(at, Pop(), s => s.Kind == Kind.Value, StackType.ValueType, "a TypedReference");
                    Push(code == ILOpCode.Refanyval ? new Slot(Kind.ByRef, (Type)at.Operand!) : Slot.Of(typeof(RuntimeTypeHandle)));
                    return true;
                default:
                    // Not an instruction the plan can emit with stack effects the check knows:
                    // the rest of this path is not checked.
                    return false;
            }
        }

        private Slot Argument(int index) => ArgumentType(index) is { } t ? Slot.Of(t) : Slot.Any;

        private Type? ArgumentType(int index) => index >= 0 && index < _argumentTypes.Length ? _argumentTypes[index] : null;

        private Type? LocalType(int index) =>
            index >= 0 && index < _body.Locals.Count ? _body.Locals[index].LocalType : null;

        private static int LocalIndex(PlanInstruction at) => at.Operand is PlanLocal local ? local.Index : (int)at.Operand!;

        private void StoreLocal(PlanInstruction at, int index)
        {
            if (LocalType(index) is { } type)
                Store(at, type, $"local {index}");
            else
                Pop();
        }

        private void StoreIndirect(PlanInstruction at, Type value)
        {
            Need(at, 2, StackType.ManagedPointer, "the address and the value");
            Slot[] v = Pop(2);
            if (!Fits(v[1], value) && !(value == typeof(object) && Reference(v[1])))
                throw Wrong(at, v[1], value, at.OpCode.Name!);
            Expect(at, v[0], Address, StackType.ManagedPointer, "an address (a managed pointer or native int)");
        }

        private void Convert(PlanInstruction at, Slot result)
        {
            Need(at, 1, StackType.Int32, "the value to convert");
            // Anything but a struct: conv.u of a pinned byref or string is how C# takes a pointer.
            Expect(at, Pop(), s => s.Kind is not (Kind.Value or Kind.Generic), StackType.Int32, "a number, a reference or a pointer");
            Push(result);
        }

        private void Return(PlanInstruction at)
        {
            bool value = _returnType != typeof(void);
            if (value)
            {
                Need(at, 1, StackTypeOf(Slot.Of(_returnType).Kind), DescribeLocation(_returnType), _returnType);
                Slot returned = _stack[^1];
                if (!Fits(returned, _returnType))
                    throw Wrong(at, returned, _returnType, $"the return type of {_body.Target.Name}");
            }
            if (_stack.Count > (value ? 1 : 0))
            {
                Slot extra = _stack[_stack.Count - (value ? 2 : 1)];
                throw Fail(at, extra, null, StackType.Nothing,
                    value
                        ? $"finds {Describe(extra)} left on the stack under the return value (the stack must hold only the return value)"
                        : $"finds {Describe(extra)} on the stack, but {_body.Target.Name} returns nothing");
            }
        }

        private void Call(PlanInstruction at, MethodBase method, bool newobj)
        {
            ParameterInfo[] parameters = method.GetParameters();
            bool receiver = !newobj && !method.IsStatic;
            int count = parameters.Length + (receiver ? 1 : 0);
            Type? firstType = receiver ? method.DeclaringType : parameters.Length > 0 ? parameters[0].ParameterType : null;
            Need(at, count, firstType is null ? StackType.Int32 : StackTypeOf(Slot.Of(firstType).Kind),
                receiver ? $"the receiver of {Names.Of(method)}" : $"the arguments of {Names.Of(method)}", firstType);
            Slot[] values = Pop(count);
            if (receiver)
                Receiver(at, values[0], method.DeclaringType, Names.Of(method));
            for (int i = 0; i < parameters.Length; i++)
            {
                Slot value = values[i + (receiver ? 1 : 0)];
                if (!Fits(value, parameters[i].ParameterType))
                    throw Wrong(at, value, parameters[i].ParameterType,
                        $"parameter {i} ('{parameters[i].Name}') of {Names.Of(method)}");
            }
            if (newobj)
                Push(Slot.Of(method.DeclaringType!));
            else if (method is MethodInfo m && m.ReturnType != typeof(void))
                Push(Slot.Of(m.ReturnType));
        }

        private void Calli(PlanInstruction at, CalliSignature signature)
        {
            int count = signature.ParameterTypes.Length + (signature.HasThis ? 1 : 0);
            Need(at, count + 1, StackType.NativeInt, "the arguments and the function pointer");
            Slot[] values = Pop(count + 1);
            Expect(at, values[^1], s => s.Kind == Kind.NativeInt, StackType.NativeInt, "the function pointer (native int) on top");
            if (signature.HasThis)
                Receiver(at, values[0], null, "the calli");
            for (int i = 0; i < signature.ParameterTypes.Length; i++)
            {
                Slot value = values[i + (signature.HasThis ? 1 : 0)];
                if (!Fits(value, signature.ParameterTypes[i]))
                    throw Wrong(at, value, signature.ParameterTypes[i], $"parameter {i} of the calli signature");
            }
            if (signature.ReturnType != typeof(void))
                Push(Slot.Of(signature.ReturnType));
        }

        /// <summary>A receiver: a reference to the declaring class (or a boxed value), a managed
        /// pointer (a struct's receiver, or after constrained.), or a native int.</summary>
        private void Receiver(PlanInstruction at, Slot value, Type? declaring, string what)
        {
            bool ok = value.Kind switch
            {
                Kind.Unknown or Kind.ByRef or Kind.NativeInt or Kind.Generic => true,
                Kind.Object => declaring is null || value.Type is null || Assignable(declaring, value.Type) ||
                               declaring.IsValueType,
                _ => false,
            };
            if (!ok)
            {
                Type expected = declaring is null ? typeof(object) : declaring.IsValueType ? declaring.MakeByRefType() : declaring;
                throw Wrong(at, value, expected, $"the receiver of {what}");
            }
        }

        private void Field(PlanInstruction at, ILOpCode code, FieldInfo field)
        {
            Type type = field.FieldType;
            switch (code)
            {
                case ILOpCode.Ldsfld:
                    Push(Slot.Of(type));
                    return;
                case ILOpCode.Ldsflda:
                    Push(new Slot(Kind.ByRef, type));
                    return;
                case ILOpCode.Stsfld:
                    Store(at, type, Names.Of(field));
                    return;
            }
            bool store = code == ILOpCode.Stfld;
            Type declaring = field.DeclaringType!;
            Need(at, store ? 2 : 1, StackType.ObjectReference, $"the object that holds {Names.Of(field)}");
            Slot[] values = Pop(store ? 2 : 1);
            if (store && !Fits(values[1], type))
                throw Wrong(at, values[1], type, Names.Of(field));
            Slot holder = values[0];
            bool ok = holder.Kind switch
            {
                Kind.Unknown or Kind.ByRef or Kind.NativeInt or Kind.Generic => true,
                Kind.Object => holder.Type is null || Assignable(declaring, holder.Type) || declaring.IsValueType,
                Kind.Value => code == ILOpCode.Ldfld && Same(declaring, holder.Type!),
                _ => false,
            };
            if (!ok)
                throw Wrong(at, holder, declaring.IsValueType ? declaring.MakeByRefType() : declaring,
                    $"the object that holds {Names.Of(field)}");
            if (!store)
                Push(code == ILOpCode.Ldflda ? new Slot(Kind.ByRef, type) : Slot.Of(type));
        }

        private void Arithmetic(PlanInstruction at, ILOpCode code)
        {
            Need(at, 2, StackType.Int32, "two operands");
            Slot[] v = Pop(2);
            Slot a = v[0], b = v[1];
            if (a.Kind == Kind.Unknown || b.Kind == Kind.Unknown)
            {
                Push(Slot.Any);
                return;
            }
            bool floats = code is ILOpCode.Add or ILOpCode.Sub or ILOpCode.Mul or ILOpCode.Div or ILOpCode.Rem;
            bool add = code is ILOpCode.Add or ILOpCode.Add_ovf_un, sub = code is ILOpCode.Sub or ILOpCode.Sub_ovf_un;
            Kind? result = (a.Kind, b.Kind) switch
            {
                (Kind.Int32, Kind.Int32) => Kind.Int32,
                (Kind.Int32 or Kind.NativeInt, Kind.Int32 or Kind.NativeInt) => Kind.NativeInt,
                (Kind.Int64, Kind.Int64) => Kind.Int64,
                (Kind.Float, Kind.Float) when floats => Kind.Float,
                (Kind.ByRef, Kind.Int32 or Kind.NativeInt) when add || sub => Kind.ByRef,
                (Kind.Int32 or Kind.NativeInt, Kind.ByRef) when add => Kind.ByRef,
                (Kind.ByRef, Kind.ByRef) when sub => Kind.NativeInt,
                _ => null,
            };
            if (result is null)
            {
                bool aValid = a.Kind is Kind.Int32 or Kind.Int64 or Kind.NativeInt || a.Kind == Kind.Float && floats ||
                              a.Kind == Kind.ByRef && (add || sub);
                if (aValid)
                    throw Wrong(at, b, StackTypeOf(a.Kind == Kind.ByRef ? Kind.NativeInt : a.Kind),
                        $"a second operand that fits {Describe(a)}");
                throw Wrong(at, a, StackType.Int32, floats ? "a number" : "an integer");
            }
            Push(result == Kind.ByRef ? new Slot(Kind.ByRef, (a.Kind == Kind.ByRef ? a : b).Type) : new Slot(result.Value));
        }

        private void Compare(PlanInstruction at)
        {
            Need(at, 2, StackType.Int32, "two operands");
            Slot[] v = Pop(2);
            Slot a = v[0], b = v[1];
            if (a.Kind == Kind.Unknown || b.Kind == Kind.Unknown)
                return;
            bool ok = (a.Kind, b.Kind) switch
            {
                (Kind.Int32 or Kind.NativeInt, Kind.Int32 or Kind.NativeInt) => true,
                (Kind.Int64, Kind.Int64) or (Kind.Float, Kind.Float) => true,
                (Kind.ByRef, Kind.ByRef or Kind.NativeInt) or (Kind.NativeInt, Kind.ByRef) => true,
                (Kind.Object or Kind.Generic, Kind.Object or Kind.Generic) => true,
                _ => false,
            };
            if (ok)
                return;
            bool aValid = a.Kind != Kind.Value;
            if (aValid)
                throw Wrong(at, b, StackTypeOf(a.Kind == Kind.Generic ? Kind.Object : a.Kind), $"a second operand comparable with {Describe(a)}");
            throw Wrong(at, a, StackType.Int32, "a number, a reference or a pointer to compare");
        }
    }
}
