using System.Globalization;
using System.Text;

namespace ReloadBenchmark;

/// <summary>
/// The large project: LiveDemo plus a generated colony simulation of game-shaped C# beside it,
/// so that an edit of Scoring.cs is one save in a project of tens of thousands of lines. Each
/// system file has the shapes a game has: a struct with fields and aggressively inlined
/// helpers, an enum, a record, an interface, a class with a pool, an event, properties,
/// operators, a generic helper, LINQ lambdas and closures, a local function, a switch
/// expression, an iterator and an async method. A module initializer starts a background
/// thread that steps every system ten times a second, so the code runs (and is JIT-compiled)
/// in the game while it is edited.
/// </summary>
internal static class ColonySource
{
    /// <summary>Writes the colony into <paramref name="directory"/> until it has at least
    /// <paramref name="lines"/> lines; returns the number of lines written.</summary>
    public static int Write(string directory, int lines)
    {
        Directory.CreateDirectory(directory);
        int written = 0, systems = 0;
        while (written < lines)
        {
            string text = System(systems);
            File.WriteAllText(Path.Combine(directory, $"System{systems:D3}.cs"), text);
            written += Count(text);
            systems++;
        }
        string colony = Colony(systems);
        File.WriteAllText(Path.Combine(directory, "Colony.cs"), colony);
        return written + Count(colony);
    }

    private static int Count(string text) => text.Count(c => c == '\n');

    private static string Colony(int systems)
    {
        var s = new StringBuilder();
        s.AppendLine("using System.Runtime.CompilerServices;");
        s.AppendLine();
        s.AppendLine("namespace LiveDemo.Colony;");
        s.AppendLine();
        s.AppendLine("/// <summary>Every system of the colony, stepped by a background thread ten times a second.</summary>");
        s.AppendLine("public static class Colony");
        s.AppendLine("{");
        s.AppendLine("    private static readonly List<Action<float>> Steps = new();");
        s.AppendLine();
        s.AppendLine("    public static long Frames;");
        s.AppendLine();
        s.AppendLine("#pragma warning disable CA2255 // the colony starts with the game, without a change to the game's code");
        s.AppendLine("    [ModuleInitializer]");
        s.AppendLine("#pragma warning restore CA2255");
        s.AppendLine("    internal static void Start()");
        s.AppendLine("    {");
        for (int i = 0; i < systems; i++)
            s.AppendLine(CultureInfo.InvariantCulture, $"        Steps.Add(new System{i:D3}(6 + {i % 5}).Update);");
        s.AppendLine("        var thread = new Thread(Run) { IsBackground = true, Name = \"colony\" };");
        s.AppendLine("        thread.Start();");
        s.AppendLine("    }");
        s.AppendLine();
        s.AppendLine("    private static void Run()");
        s.AppendLine("    {");
        s.AppendLine("        while (true)");
        s.AppendLine("        {");
        s.AppendLine("            foreach (Action<float> step in Steps)");
        s.AppendLine("                step(0.1f);");
        s.AppendLine("            Interlocked.Increment(ref Frames);");
        s.AppendLine("            Thread.Sleep(100);");
        s.AppendLine("        }");
        s.AppendLine("    }");
        s.AppendLine("}");
        return s.ToString();
    }

    // One system: about 250 lines. {0} is the system's number.
    private static string System(int n)
    {
        string i = n.ToString("D3", CultureInfo.InvariantCulture);
        var s = new StringBuilder();
        s.Append(CultureInfo.InvariantCulture, $$"""
            using System.Runtime.CompilerServices;

            namespace LiveDemo.Colony;

            public enum Mood{{i}}
            {
                Idle,
                Moving,
                Working,
                Resting,
                Fighting,
            }

            public readonly record struct Vec{{i}}(float X, float Y)
            {
                public static Vec{{i}} operator +(Vec{{i}} a, Vec{{i}} b) => new(a.X + b.X, a.Y + b.Y);

                public static Vec{{i}} operator -(Vec{{i}} a, Vec{{i}} b) => new(a.X - b.X, a.Y - b.Y);

                public static Vec{{i}} operator *(Vec{{i}} a, float k) => new(a.X * k, a.Y * k);

                [MethodImpl(MethodImplOptions.AggressiveInlining)]
                public float Length2() => X * X + Y * Y;
            }

            public struct Body{{i}}
            {
                public Vec{{i}} Position;
                public Vec{{i}} Velocity;
                public int Health;
                public int Food;
                public Mood{{i}} Mood;

                [MethodImpl(MethodImplOptions.AggressiveInlining)]
                public readonly bool Alive() => Health > 0;

                [MethodImpl(MethodImplOptions.AggressiveInlining)]
                public void Step(float dt)
                {
                    Position += Velocity * dt;
                    if (Position.Length2() > 10_000f)
                        Velocity = Velocity * -1f;
                }
            }

            public sealed record Order{{i}}(int Target, float Weight, string Tag);

            public interface IRule{{i}}
            {
                float Score(in Body{{i}} body);
            }

            public sealed class Pool{{i}}<T> where T : class, new()
            {
                private readonly Stack<T> _free = new();

                public int Created { get; private set; }

                public T Rent()
                {
                    if (_free.TryPop(out T? item))
                        return item;
                    Created++;
                    return new T();
                }

                public void Return(T item) => _free.Push(item);
            }

            public sealed class Scratch{{i}}
            {
                public List<int> Indices { get; } = new();
            }

            public sealed class System{{i}} : IRule{{i}}
            {
                private readonly Body{{i}}[] _bodies;
                private readonly List<Order{{i}}> _orders = new();
                private readonly Dictionary<int, float> _cache = new();
                private readonly Pool{{i}}<Scratch{{i}}> _scratch = new();
                private readonly Random _random;

                public System{{i}}(int count)
                {
                    _random = new Random({{n}});
                    _bodies = new Body{{i}}[count];
                    for (int k = 0; k < count; k++)
                    {
                        _bodies[k] = new Body{{i}}
                        {
                            Position = new Vec{{i}}(k, -k),
                            Velocity = new Vec{{i}}(1 + k % 3, 2 - k % 4),
                            Health = 100,
                            Food = 50 + k,
                            Mood = (Mood{{i}})(k % 5),
                        };
                    }
                }

                public event Action<int>? Died;

                public int Tick { get; private set; }

                public int Population => _bodies.Count(b => b.Alive());

                public float Score(in Body{{i}} body) => body.Mood switch
                {
                    Mood{{i}}.Idle => 0.5f,
                    Mood{{i}}.Moving => body.Velocity.Length2() * 0.01f,
                    Mood{{i}}.Working => 2f + body.Food * 0.1f,
                    Mood{{i}}.Resting => body.Health * 0.02f,
                    _ => -1f,
                };

                public void Update(float dt)
                {
                    Tick++;
                    for (int k = 0; k < _bodies.Length; k++)
                    {
                        ref Body{{i}} body = ref _bodies[k];
                        if (!body.Alive())
                            continue;
                        body.Step(dt);
                        body.Food -= 1;
                        if (body.Food <= 0)
                        {
                            body.Health -= 5;
                            if (!body.Alive())
                                Died?.Invoke(k);
                        }
                        body.Mood = NextMood(body);
                    }
                    Plan();
                    if (Tick % 16 == 0)
                        Feed(Hungriest(3));
                }

                private Mood{{i}} NextMood(in Body{{i}} body)
                {
                    if (body.Food < 10)
                        return Mood{{i}}.Working;
                    if (body.Health < 30)
                        return Mood{{i}}.Resting;
                    return _random.Next(4) switch
                    {
                        0 => Mood{{i}}.Idle,
                        1 => Mood{{i}}.Moving,
                        2 => body.Mood,
                        _ => Mood{{i}}.Working,
                    };
                }

                private void Plan()
                {
                    _orders.Clear();
                    Scratch{{i}} scratch = _scratch.Rent();
                    scratch.Indices.Clear();
                    for (int k = 0; k < _bodies.Length; k++)
                        if (_bodies[k].Alive())
                            scratch.Indices.Add(k);
                    float threshold = Threshold();
                    foreach (int k in scratch.Indices.Where(k => Score(_bodies[k]) > threshold).OrderBy(k => _bodies[k].Health))
                        _orders.Add(new Order{{i}}(k, Weigh(k), Tag(_bodies[k].Mood)));
                    _scratch.Return(scratch);

                    float Weigh(int k)
                    {
                        if (_cache.TryGetValue(k, out float cached) && Tick % 8 != 0)
                            return cached;
                        float w = Score(_bodies[k]) / (1 + _bodies[k].Position.Length2());
                        _cache[k] = w;
                        return w;
                    }
                }

                private float Threshold() => _bodies.Length == 0 ? 0 : _bodies.Average(b => Score(b)) * 0.5f;

                private static string Tag(Mood{{i}} mood) => mood switch
                {
                    Mood{{i}}.Working => "work",
                    Mood{{i}}.Fighting => "fight",
                    _ => "rest",
                };

                public IEnumerable<int> Hungriest(int count)
                {
                    int given = 0;
                    foreach (int k in Enumerable.Range(0, _bodies.Length).OrderBy(k => _bodies[k].Food))
                    {
                        if (given++ == count)
                            yield break;
                        yield return k;
                    }
                }

                private void Feed(IEnumerable<int> which)
                {
                    foreach (int k in which)
                        _bodies[k].Food += 20;
                }

                public T Pick<T>(Func<Body{{i}}, T> select, Func<T, bool> keep)
                {
                    foreach (Body{{i}} body in _bodies)
                    {
                        T value = select(body);
                        if (keep(value))
                            return value;
                    }
                    return default!;
                }

                public async Task<int> SaveAsync(TextWriter writer, CancellationToken cancellationToken)
                {
                    int lines = 0;
                    foreach (Order{{i}} order in _orders)
                    {
                        cancellationToken.ThrowIfCancellationRequested();
                        await writer.WriteLineAsync($"{order.Target} {order.Weight:0.00} {order.Tag}");
                        lines++;
                    }
                    await Task.Yield();
                    return lines;
                }

                public string Describe()
                {
                    int working = _bodies.Count(b => b.Mood == Mood{{i}}.Working);
                    int resting = _bodies.Count(b => b.Mood == Mood{{i}}.Resting);
                    float food = _bodies.Sum(b => (float)b.Food);
                    string best = Pick(b => b.Health, h => h > 90) > 0 ? "healthy" : "struggling";
                    return $"system {{i}}: tick {Tick}, {Population} alive, {working} working, {resting} resting, " +
                           $"food {food:0}, {_orders.Count} orders, {best}";
                }
            }

            """);
        return s.ToString();
    }
}
