namespace AlvorKit.Interception.HarmonyLib;

/// <summary>Which member of the declaring type a <see cref="HarmonyPatch"/> names (Harmony's MethodType, with its
/// values).</summary>
public enum MethodType
{
    /// <summary>The method named by the attribute.</summary>
    Normal = 0,

    /// <summary>The getter of the named property (no name: of the indexer the argument types select).</summary>
    Getter = 1,

    /// <summary>The setter of the named property (no name: of the indexer the argument types select).</summary>
    Setter = 2,

    /// <summary>An instance constructor: the argument types select it; none given, the parameterless one.</summary>
    Constructor = 3,

    /// <summary>The static constructor.</summary>
    StaticConstructor = 4,

    /// <summary>The MoveNext of the iterator the named method returns (its body lives there).</summary>
    Enumerator = 5,

    /// <summary>The MoveNext of the named async method's state machine.</summary>
    Async = 6,

    /// <summary>The type's finalizer (Finalize).</summary>
    Finalizer = 7,

    /// <summary>The add accessor of the named event.</summary>
    EventAdd = 8,

    /// <summary>The remove accessor of the named event.</summary>
    EventRemove = 9,

    /// <summary>op_Implicit.</summary>
    OperatorImplicit = 10,

    /// <summary>op_Explicit.</summary>
    OperatorExplicit = 11,

    /// <summary>op_UnaryPlus.</summary>
    OperatorUnaryPlus = 12,

    /// <summary>op_UnaryNegation.</summary>
    OperatorUnaryNegation = 13,

    /// <summary>op_LogicalNot.</summary>
    OperatorLogicalNot = 14,

    /// <summary>op_OnesComplement.</summary>
    OperatorOnesComplement = 15,

    /// <summary>op_Increment.</summary>
    OperatorIncrement = 16,

    /// <summary>op_Decrement.</summary>
    OperatorDecrement = 17,

    /// <summary>op_True.</summary>
    OperatorTrue = 18,

    /// <summary>op_False.</summary>
    OperatorFalse = 19,

    /// <summary>op_Addition.</summary>
    OperatorAddition = 20,

    /// <summary>op_Subtraction.</summary>
    OperatorSubtraction = 21,

    /// <summary>op_Multiply.</summary>
    OperatorMultiply = 22,

    /// <summary>op_Division.</summary>
    OperatorDivision = 23,

    /// <summary>op_Modulus.</summary>
    OperatorModulus = 24,

    /// <summary>op_BitwiseAnd.</summary>
    OperatorBitwiseAnd = 25,

    /// <summary>op_BitwiseOr.</summary>
    OperatorBitwiseOr = 26,

    /// <summary>op_ExclusiveOr.</summary>
    OperatorExclusiveOr = 27,

    /// <summary>op_LeftShift.</summary>
    OperatorLeftShift = 28,

    /// <summary>op_RightShift.</summary>
    OperatorRightShift = 29,

    /// <summary>op_Equality.</summary>
    OperatorEquality = 30,

    /// <summary>op_Inequality.</summary>
    OperatorInequality = 31,

    /// <summary>op_GreaterThan.</summary>
    OperatorGreaterThan = 32,

    /// <summary>op_LessThan.</summary>
    OperatorLessThan = 33,

    /// <summary>op_GreaterThanOrEqual.</summary>
    OperatorGreaterThanOrEqual = 34,

    /// <summary>op_LessThanOrEqual.</summary>
    OperatorLessThanOrEqual = 35,

    /// <summary>op_Comma.</summary>
    OperatorComma = 36,
}

/// <summary>How an argument type of a <see cref="HarmonyPatch"/> is passed (Harmony's ArgumentType).</summary>
public enum ArgumentType
{
    /// <summary>By value: the type as given.</summary>
    Normal,

    /// <summary>ref: the type's by-reference form.</summary>
    Ref,

    /// <summary>out: the type's by-reference form.</summary>
    Out,

    /// <summary>A pointer to the type.</summary>
#pragma warning disable CA1720 // Harmony's name
    Pointer,
#pragma warning restore CA1720
}

/// <summary>Which hooks <see cref="Harmony.Unpatch(System.Reflection.MethodBase, HarmonyPatchType, string)"/> removes
/// (Harmony's HarmonyPatchType; transpilers, reverse patches and infixes have no counterpart here yet).</summary>
public enum HarmonyPatchType
{
    /// <summary>Every kind.</summary>
    All,

    /// <summary>Prefixes.</summary>
    Prefix,

    /// <summary>Postfixes.</summary>
    Postfix,

    /// <summary>Transpilers.</summary>
    Transpiler,

    /// <summary>Finalizers.</summary>
    Finalizer,

    /// <summary>Reverse patches (none can be added here yet).</summary>
    ReversePatch,

    /// <summary>Inner prefixes (none can be added here yet).</summary>
    InnerPrefix,

    /// <summary>Inner postfixes (none can be added here yet).</summary>
    InnerPostfix,
}
