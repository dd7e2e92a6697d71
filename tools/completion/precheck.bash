# bash completion for precheck: its commands, each command's options, and the values of the
# options that take a file, a directory or one of a few words. Self-contained (no helper of the
# bash-completion package is needed); installed as share/bash-completion/completions/precheck,
# where bash-completion loads it on the first <Tab> after "precheck".
# The lists follow 'precheck --help' and 'precheck COMMAND --help' (tests/install/test_install.sh
# checks that they are the same).

_precheck_commands="acc_check api_precision_compare check_dump compare diff dtypes materialize
merge multi_acc_check multi_run_ut op_generate ops report repro run_overflow_check run_ut"

# The options of a command, as its --help spells them.
_precheck_options()
{
    local run_ut="-api_info --api_info_file -o --out_path -save_error_data -j --jit_compile
        -d --device -csv_path --result_csv_path -f --filter_api -config --config_path
        --backend --python --bench --seed --timeout --max-memory --jobs --config_yaml
        --no-progress --progress-interval --fail-on --bench-cache --bench-cache-max --shard --resume
        --junit -h --help"
    case $1 in
    run_ut | acc_check) echo "$run_ut" ;;
    multi_run_ut | multi_acc_check) echo "$run_ut -n --num_splits" ;;
    run_overflow_check)
        echo "-api_info --api_info_file -j --jit_compile -d --device --backend --python --seed
            -h --help"
        ;;
    api_precision_compare) echo "-h --help -npu --npu_csv_path -gpu --gpu_csv_path -o --out_path
        --fail-on --allow-different-dumps --junit" ;;
    diff) echo "-h --help --factor --json --junit --fail-on --allow-different-dumps --all" ;;
    materialize) echo "-api_info --api_info_file -o --out_path --seed -h --help" ;;
    check_dump) echo "-api_info --api_info_file -h --help" ;;
    op_generate) echo "-i --config_input -o --api_output_path --precheck-inputs --seed -h --help" ;;
    repro) echo "-api_info --api_info_file -o --out_path --api --backend --python --bench --seed
        -h --help" ;;
    compare) echo "-bench --bench_path -device --device_path -api_name --bench -precision
        --threads --cosine-blas-order -h --help" ;;
    ops) echo "--json --dump -h --help" ;;
    report) echo "-o --output --run --error-data --max-plots --baseline --allow-different-dumps -h
        --help" ;;
    merge) echo "-o --out_path -api_info --api_info_file -h --help" ;;
    dtypes) echo "-h --help" ;;
    *) echo "-h --help --version -f --framework" ;;
    esac
}

# What the value of option $2 of command $1 is: file, dir, a list of words, or nothing.
_precheck_value()
{
    case $2 in
    -api_info | --api_info_file | -csv_path | --result_csv_path | -config | --config_path | \
        --config_yaml | -npu | --npu_csv_path | -gpu | --gpu_csv_path | --bench_path | \
        --device_path | --dump | --python | -i | --config_input | --junit)
        echo file
        ;;
    -bench | -device) [[ $1 == compare ]] && echo file || echo none ;;
    --json) [[ $1 == diff ]] && echo file || echo switch ;;
    -o | --output) [[ $1 == report ]] && echo file || echo dir ;;
    --out_path | --bench-cache | --error-data | --resume | --api_output_path | --baseline) echo dir ;;
    --backend)
        if [[ $1 == run_overflow_check ]]; then
            echo "words cpu torch:cpu torch:cuda torch:npu faulty:"
        else
            echo "words cpu torch:cpu torch:cuda torch:npu replay faulty:"
        fi
        ;;
    --bench) echo "words msprobe fp64" ;;
    --fail-on)
        if [[ $1 == diff ]]; then
            echo "words new-error new-warning moved missing any"
        else
            echo "words error warning"
        fi
        ;;
    -f | --framework) [[ -z $1 ]] && echo "words pytorch" || echo switch ;;
    -d | --device | -j | --jit_compile | -n | --num_splits | --seed | --timeout | --max-memory | \
        --jobs | --progress-interval | -api_name | -precision | --threads | --run | --max-plots | \
        --shard | --api | --factor)
        # a value the user types (-j takes one in run_overflow_check only)
        if [[ $1 != run_overflow_check && ($2 == -j || $2 == --jit_compile) ]]; then
            echo switch
        else
            echo none
        fi
        ;;
    *) echo switch ;;
    esac
}

_precheck()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev='' cmd='' i word
    COMPREPLY=()
    # the command: the first word that is neither an option nor the value of one
    # ("precheck -f pytorch run_ut ...", msprobe's spelling, included)
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [[ $word == -f || $word == --framework ]]; then
            ((i++))
        elif [[ $word != -* ]]; then
            cmd=$word
            break
        fi
    done
    # the option whose value is being typed: "-o DIR", or "--out_path=DIR" (bash splits it at '=')
    if ((COMP_CWORD >= 2)) && [[ ${COMP_WORDS[COMP_CWORD - 1]} == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        cur=
    elif ((COMP_CWORD >= 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 1]}
    fi
    if [[ $prev == -* ]]; then
        local what
        what=$(_precheck_value "$cmd" "$prev")
        case $what in
        file)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return 0
            ;;
        dir)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return 0
            ;;
        words\ *)
            mapfile -t COMPREPLY < <(compgen -W "${what#words }" -- "$cur")
            [[ ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
            return 0
            ;;
        none) return 0 ;;
        esac
    fi
    if [[ -z $cmd && $cur != -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$_precheck_commands" -- "$cur")
    elif [[ ($cmd == report || $cmd == merge) && $cur != -* ]]; then
        # report's one positional argument, merge's several: output folders of runs
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    else
        mapfile -t COMPREPLY < <(compgen -W "$(_precheck_options "$cmd")" -- "$cur")
    fi
    return 0
}

complete -F _precheck precheck
