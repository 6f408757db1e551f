package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/fabric/dtable"
	"github.com/opasim/opasim/strictyaml"
)

func newQoSCmd() *cobra.Command {
	qos := &cobra.Command{Use: "qos", Short: "QoS configuration tools", Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return badInput(fmt.Errorf("%s needs a subcommand: dtable (see --help)", cmd.CommandPath()))
		}}
	qos.AddCommand(newDTableCmd())
	return qos
}

// dtableFlags are the flags of `opasim qos dtable`.
type dtableFlags struct {
	req       dtable.Request
	sls       []string
	file, out string
	asJSON    bool
	limit     int // --table-entries: the most entries the hardware holds (0: no limit)
}

// newDTableCmd applies seed 000's DTable configuration methodology and
// bandwidth correction (sections 3.3.2 and 3.3.3).
func newDTableCmd() *cobra.Command {
	var o dtableFlags
	cmd := &cobra.Command{
		Use:   "dtable",
		Short: "Build a DTable arbitration table from N, GMTU, w, k and per-SL distance, MTU and share; print its bounds",
		Example: "  opasim qos dtable --entries 128 --gmtu 16 --w 8 --k 2 \\\n" +
			"    --sl VO:2:2:0.1 --sl VI:4:4:0.3 --sl CL:8:8:0.5 --sl BE:16:16:0.05 --sl BK:16:16:0.05 --out table.yaml",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	fs := cmd.Flags()
	fs.IntVar(&o.req.Entries, "entries", 128, "N, entries of the arbitration table")
	fs.IntVar(&o.req.GMTU, "gmtu", 16, "GMTU, the largest MTU, in credits")
	fs.IntVar(&o.req.W, "w", 8, "maximum weight decoupling parameter (M = GMTU * w)")
	fs.IntVar(&o.req.K, "k", 2, "bandwidth pool decoupling parameter (pool = N * GMTU * k), k <= w")
	fs.StringArrayVar(&o.sls, "sl", nil, "an SL as NAME:DISTANCE:MTU:SHARE (MTU in credits); repeat per SL")
	fs.StringVar(&o.file, "file", "", "read the request from YAML (entries, gmtu, w, k, sls: [{name, distance, mtu, share}]); --sl adds SLs")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON instead of a table")
	fs.StringVar(&o.out, "out", "", "write the arbitration table here, in the form qos.dtable_file loads")
	fs.IntVar(&o.limit, "table-entries", 0, "the most entries the hardware's table holds (qos.table_entries); without --entries, N is set to it; 0: no limit")
	return cmd
}

// run configures the table, prints it and writes it to --out.
func (o *dtableFlags) run(cmd *cobra.Command) error {
	if o.out != "" {
		if err := checkWritable("--out", o.out); err != nil {
			return err
		}
	}
	req := o.req
	if o.file != "" {
		data, err := strictyaml.ReadChecked(o.file, reflect.TypeOf(dtable.Request{}))
		if err != nil {
			return badInput(fmt.Errorf("--file %w", err))
		}
		if req, err = dtable.LoadRequest(bytes.NewReader(data)); err != nil {
			return badInput(fmt.Errorf("--file %s: %w", o.file, err))
		}
	}
	for _, s := range o.sls {
		sl, err := dtable.ParseSL(s)
		if err != nil {
			return badInput(fmt.Errorf("--sl: %w", err))
		}
		req.SLs = append(req.SLs, sl)
	}
	if o.limit < 0 {
		return badInput(fmt.Errorf("--table-entries: %d is not allowed: must be at least 0 (0: no limit)", o.limit))
	}
	if o.limit > 0 && !cmd.Flags().Changed("entries") && o.file == "" {
		req.Entries = o.limit // the table uses at most N entries (unused ones are left out)
	}
	res, err := dtable.Configure(req)
	if err != nil {
		return badInput(err)
	}
	if o.limit > 0 && len(res.Table) > o.limit {
		return badInput(fmt.Errorf("--table-entries: the table has %d entries (N = %d), more than the %d the hardware holds; lower --entries", len(res.Table), res.Entries, o.limit))
	}
	if err := printDTable(cmd, res, o.asJSON); err != nil {
		return err
	}
	if o.out == "" {
		return nil
	}
	return writeTable(o.out, res)
}

// writeTable writes res's table to path, atomically: the file
// qos.dtable_file loads.
func writeTable(path string, res *dtable.Result) error {
	var table bytes.Buffer
	if err := res.WriteTable(&table); err != nil {
		return err
	}
	return writeFileAtomic(path, table.Bytes())
}

// dtableJSON is the --json output: the configuration, then the link the
// bounds are counted on and the bounds of each SL.
type dtableJSON struct {
	*dtable.Result
	Link   dtable.Link      `json:"link"`
	Bounds []dtable.SLBound `json:"bounds"`
}

// printDTable prints the configuration and, after it, the bounds of its
// table on the default link of 64-byte credits (dtable.DefaultLink).
func printDTable(cmd *cobra.Command, res *dtable.Result, asJSON bool) error {
	link := dtable.DefaultLink
	bounds, err := res.Bounds(link)
	if err != nil {
		return fmt.Errorf("internal error, the bounds of a configured table: %w", err)
	}
	if !asJSON {
		fmt.Fprint(cmd.OutOrStdout(), res.Text()+"\n"+dtable.BoundsText(bounds, link))
		return nil
	}
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(dtableJSON{Result: res, Link: link, Bounds: bounds})
}
