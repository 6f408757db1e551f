package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/opasim/opasim/fabric/dtable"
)

func newQoSCmd() *cobra.Command {
	qos := &cobra.Command{Use: "qos", Short: "QoS configuration tools", Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return badInput(fmt.Errorf("%s needs a subcommand: dtable (see --help)", cmd.CommandPath()))
		}}
	qos.AddCommand(newDTableCmd())
	return qos
}

// newDTableCmd applies seed 000's DTable configuration methodology and
// bandwidth correction (sections 3.3.2 and 3.3.3).
func newDTableCmd() *cobra.Command {
	var req dtable.Request
	var sls []string
	var file, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "dtable",
		Short: "Build a DTable arbitration table from N, GMTU, w, k and per-SL distance, MTU and share",
		Example: "  opasim qos dtable --entries 128 --gmtu 16 --w 8 --k 2 \\\n" +
			"    --sl VO:2:2:0.1 --sl VI:4:4:0.3 --sl CL:8:8:0.5 --sl BE:16:16:0.05 --sl BK:16:16:0.05 --out table.yaml",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file != "" {
				f, err := os.Open(file)
				if err != nil {
					return badInput(fmt.Errorf("--file: %w", err))
				}
				defer f.Close()
				if req, err = dtable.LoadRequest(f); err != nil {
					return badInput(fmt.Errorf("--file %s: %w", file, err))
				}
			}
			for _, s := range sls {
				sl, err := dtable.ParseSL(s)
				if err != nil {
					return badInput(fmt.Errorf("--sl: %w", err))
				}
				req.SLs = append(req.SLs, sl)
			}
			res, err := dtable.Configure(req)
			if err != nil {
				return badInput(err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				fmt.Fprint(cmd.OutOrStdout(), res.Text())
			}
			if out == "" {
				return nil
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			defer f.Close()
			return res.WriteTable(f)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&req.Entries, "entries", 128, "N, entries of the arbitration table")
	fs.IntVar(&req.GMTU, "gmtu", 16, "GMTU, the largest MTU, in credits")
	fs.IntVar(&req.W, "w", 8, "maximum weight decoupling parameter (M = GMTU * w)")
	fs.IntVar(&req.K, "k", 2, "bandwidth pool decoupling parameter (pool = N * GMTU * k), k <= w")
	fs.StringArrayVar(&sls, "sl", nil, "an SL as NAME:DISTANCE:MTU:SHARE (MTU in credits); repeat per SL")
	fs.StringVar(&file, "file", "", "read the request from YAML (entries, gmtu, w, k, sls: [{name, distance, mtu, share}]); --sl adds SLs")
	fs.BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	fs.StringVar(&out, "out", "", "write the arbitration table here, in the form qos.dtable_file loads")
	return cmd
}
